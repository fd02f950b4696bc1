import { ApiProperty } from '@nestjs/swagger';
import { IsString, Validate } from 'class-validator';
import { CodePointLength } from '../../common/validation/code-point-length';
import { Trim } from '../../common/validation/transforms';

/** A visitor's message, on every channel (the widget's and the API channel's). */
export class SendMessageDto {
  @ApiProperty({ minLength: 1, maxLength: 4000, description: "The visitor's message. Trimmed; length in Unicode code points." })
  @Trim()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [1, 4000])
  content!: string;
}
