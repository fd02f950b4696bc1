import { Controller, Get, Query } from '@nestjs/common';
import { Principal, RequireScopes } from '../common/access/access.decorators';
import type { ApiPrincipal } from '../common/http/request-context';
import { NoQueryDto } from '../common/paging/pagination';
import { toVerificationResponse, type VerificationResponse } from './verification.mapper';

@Controller('api/v1/verify')
export class VerifyController {
  @Get()
  @RequireScopes()
  verify(@Principal() principal: ApiPrincipal, @Query() _query: NoQueryDto): VerificationResponse {
    return toVerificationResponse(principal);
  }
}
