import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, IsUUID, Validate, ValidateIf } from 'class-validator';
import { CodePointLength } from '../../common/validation/code-point-length';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { Trim } from '../../common/validation/transforms';

/** POST /api/v1/conversations/:id/messages: a person's answer to the visitor. */
export class AgentMessageDto {
  @ApiProperty({ minLength: 1, maxLength: 4000, description: 'Trimmed.' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [1, 4000])
  content!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100, description: 'The name the visitor sees; by default a signed-in user’s name, none for a key. Trimmed.' })
  @OptionalNotNull()
  @Trim()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [1, 100])
  authorName?: string;
}

/** PUT /api/v1/conversations/:id/assignee. */
export class AssigneeDto {
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'A member whose role may answer conversations (conversations:write), or null for nobody.',
  })
  @ValidateIf((_, value: unknown) => value !== null)
  @IsUUID('all', { message: 'must be a UUID or null' })
  userId!: string | null;

  @ApiPropertyOptional({ default: false, description: 'Take the conversation from the user who holds it (otherwise 409 `ALREADY_ASSIGNED`).' })
  @OptionalNotNull()
  @IsBoolean({ message: 'must be true or false' })
  force?: boolean;
}
