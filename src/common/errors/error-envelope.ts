import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ErrorCode } from './error-codes';

export class FieldErrorResponse {
  @ApiProperty({
    description: 'The field, query parameter or `body`; nested fields are dotted (`messages[0].role`). A name over 64 characters is cut there and ends in `…`.',
    example: 'email',
  })
  field: string;

  @ApiProperty({ description: 'The rule the value broke; never the value itself.', example: 'must be a valid e-mail address' })
  message: string;
}

export class ErrorBody {
  @ApiProperty({ enum: Object.values(ErrorCode), enumName: 'ErrorCode', description: 'Machine-readable code.' })
  code: ErrorCode;

  @ApiProperty({ description: 'Human-readable text, written for API users.' })
  message: string;

  @ApiProperty({ type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status code.' })
  status: number;

  @ApiProperty({ description: 'The request id, also in the X-Request-Id header; quote it when reporting a problem.' })
  requestId: string;

  @ApiPropertyOptional({ type: [FieldErrorResponse], maxItems: 20, description: 'On VALIDATION_ERROR only: one entry per broken field, at most 20.' })
  details?: FieldErrorResponse[];

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'How many more fields are broken than `details` lists (it lists at most 20).' })
  moreDetails?: number;
}

/** The one shape of every error answer (SPEC 7, API_DECISIONS Conventions). */
export class ErrorEnvelope {
  @ApiProperty({ type: ErrorBody })
  error: ErrorBody;
}
