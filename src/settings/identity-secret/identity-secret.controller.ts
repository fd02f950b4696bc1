import { Controller, Delete, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Principal, UsersOnly } from '../../common/access/access.decorators';
import type { ApiPrincipal } from '../../common/http/request-context';
import { type Actor, CurrentActor } from '../../events/actor';
import { ApiNoBody, ApiUserEndpoint } from '../../openapi/openapi.decorators';
import { IdentitySecretResponse } from './identity-secret.mapper';
import { IdentitySecretService } from './identity-secret.service';

/** The secret the tenant's back end signs its visitors' identity tokens with (docs/known-visitors.md). */
@Controller('api/v1/identity-secret')
@ApiTags('Settings')
export class IdentitySecretController {
  constructor(private readonly secrets: IdentitySecretService) {}

  /** The one answer that carries the secret. */
  @Post()
  @HttpCode(201)
  @ApiUserEndpoint({
    operationId: 'createIdentitySecret',
    summary: 'Make the identity secret (replacing the old one)',
    description:
      'The answer carries the secret, once. A secret made again replaces the old one at once: identity tokens signed with the old one are refused from then on. Settings show only `identityVerification.configured`.',
    status: 201,
    type: IdentitySecretResponse,
  })
  @UsersOnly('manager')
  @ApiNoBody()
  async create(@Principal() { tenant }: ApiPrincipal, @CurrentActor() actor: Actor): Promise<IdentitySecretResponse> {
    return { secret: await this.secrets.create(tenant.id, actor) };
  }

  @Delete()
  @HttpCode(204)
  @ApiUserEndpoint({
    operationId: 'deleteIdentitySecret',
    summary: 'Delete the identity secret',
    description:
      'Identity tokens are refused from then on, and `identityVerification.required` goes back to false (required without a secret would refuse every visitor). Without a secret: 204, nothing changes.',
    status: 204,
  })
  @UsersOnly('manager')
  async delete(@Principal() { tenant }: ApiPrincipal, @CurrentActor() actor: Actor): Promise<void> {
    await this.secrets.delete(tenant.id, actor);
  }
}
