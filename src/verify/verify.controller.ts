import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Principal, RequireScopes } from '../common/access/access.decorators';
import type { ApiPrincipal } from '../common/http/request-context';
import { ApiV1Endpoint } from '../openapi/openapi.decorators';
import { MessageQuota } from '../usage/message-quota';
import { toVerificationResponse, VerificationResponse } from './verification.mapper';

@Controller('api/v1/verify')
@ApiTags('Account')
export class VerifyController {
  constructor(private readonly usage: MessageQuota) {}

  @Get()
  @ApiV1Endpoint({ operationId: 'verifyKey', summary: 'Validate the API key and return its tenant and plan', type: VerificationResponse })
  @RequireScopes()
  async verify(@Principal() principal: ApiPrincipal): Promise<VerificationResponse> {
    // A public key is copied from web pages: its holder learns who the tenant is, not how busy it is.
    const messages = principal.apiKey?.type === 'public' ? undefined : await this.usage.usedThisMonth(principal.tenant.id);
    return toVerificationResponse(principal, messages);
  }
}
