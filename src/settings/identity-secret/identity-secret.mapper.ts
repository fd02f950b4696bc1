import { ApiProperty } from '@nestjs/swagger';

export class IdentitySecretResponse {
  @ApiProperty({
    pattern: '^idsec_[A-Za-z0-9_-]{43}$',
    example: 'idsec_3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    description: "The HS256 key of the tenant's identity tokens (the whole string, as UTF-8). Shown this once; a new one replaces the old at once.",
  })
  secret: string;
}
