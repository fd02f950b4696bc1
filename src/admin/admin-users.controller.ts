import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiBody, ApiProperty, ApiTags } from '@nestjs/swagger';
import { passwordResetUrl } from '../accounts/links';
import { PasswordResetsService } from '../accounts/password-resets/password-resets.service';
import { AdminOnly } from '../common/access/access.decorators';
import { EmptyBodyDto } from '../common/validation/empty-body.dto';
import { IdOf } from '../common/validation/id.pipe';
import { APP_CONFIG, type AppConfig } from '../config/env';
import { ApiAdminEndpoint, ApiIdParam, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';

export class AdminPasswordResetResponse {
  @ApiProperty({ format: 'uri', description: 'The reset link: shown once, single use, valid one hour.' })
  resetUrl: string;
}

@Controller('admin/v1/users/:userId')
@AdminOnly()
@ApiTags('Admin')
export class AdminUsersController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly resets: PasswordResetsService,
  ) {}

  @Post('password-resets')
  @HttpCode(201)
  @ApiAdminEndpoint({
    operationId: 'createPasswordResetLink',
    summary: 'A password-reset link for a user, for platforms without mail',
    status: 201,
    type: AdminPasswordResetResponse,
    errors: JSON_BODY_ERRORS,
  })
  @ApiIdParam('userId', 'User')
  @ApiBody({ type: EmptyBodyDto, required: false })
  async createReset(@Param('userId', IdOf('User')) userId: string, @Body() _body: EmptyBodyDto): Promise<AdminPasswordResetResponse> {
    return { resetUrl: await this.resets.issueForAdmin(userId, (token) => passwordResetUrl(this.config, token)) };
  }
}
