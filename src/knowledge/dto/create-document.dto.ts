import { ApiProperty, PartialType } from '@nestjs/swagger';
import { IsString, Validate } from 'class-validator';
import { CodePointLength } from '../../common/validation/code-point-length';
import { Trim } from '../../common/validation/transforms';

export const MAX_TITLE_CHARACTERS = 200;
export const MAX_CONTENT_CHARACTERS = 200_000;

/**
 * The body limit of the routes that take a document: 200,000 characters of up to 4 bytes each in
 * UTF-8 (800,000 bytes) and the JSON around them fit in 1 MiB. Text dense with characters JSON
 * must escape (control characters: 6 bytes each) can pass it first: 413 then.
 */
export const DOCUMENT_BODY_LIMIT_BYTES = 1024 * 1024;

export class CreateDocumentDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_TITLE_CHARACTERS, description: 'Trimmed; characters are Unicode code points.' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [1, MAX_TITLE_CHARACTERS])
  title!: string;

  @ApiProperty({
    minLength: 1,
    maxLength: MAX_CONTENT_CHARACTERS,
    description: 'The text answers are made of; paragraphs are separated by a blank line. Characters are Unicode code points.',
  })
  @IsString({ message: 'must be a string' })
  @Validate(CodePointLength, [1, MAX_CONTENT_CHARACTERS])
  content!: string;
}

/** A new title, new content, or both; neither may be null. */
export class UpdateDocumentDto extends PartialType(CreateDocumentDto, { skipNullProperties: false }) {}
