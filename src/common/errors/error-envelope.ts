import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ErrorCode } from './error-codes';

export class FieldErrorResponse {
  @ApiProperty({ description: 'The field, query parameter or `body`; nested fields are dotted (`messages[0].role`).', example: 'email' })
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

  @ApiPropertyOptional({ type: [FieldErrorResponse], description: 'On VALIDATION_ERROR only: one entry per broken field.' })
  details?: FieldErrorResponse[];
}

/** The one shape of every error answer (SPEC 7, API_DECISIONS Conventions). */
export class ErrorEnvelope {
  @ApiProperty({ type: ErrorBody })
  error: ErrorBody;
}
