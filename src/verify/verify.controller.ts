import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Principal } from '../common/access/access.decorators';
import type { ApiPrincipal } from '../common/http/request-context';
import { ApiV1Endpoint } from '../openapi/openapi.decorators';
import { NoQueryDto } from '../common/paging/pagination';
import { toVerificationResponse, VerificationResponse } from './verification.mapper';

@Controller('api/v1/verify')
@ApiTags('Account')
export class VerifyController {
  @Get()
  @ApiV1Endpoint({ operationId: 'verifyKey', summary: 'Validate the API key and return its tenant and plan', scopes: [], type: VerificationResponse })
  verify(@Principal() principal: ApiPrincipal, @Query() _query: NoQueryDto): VerificationResponse {
    return toVerificationResponse(principal);
  }
}
