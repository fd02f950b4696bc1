import { IsString, MaxLength, MinLength } from 'class-validator';
import { Trim } from '../../common/validation/transforms';

export class CreateDocumentDto {
  @Trim() @IsString({ message: 'must be a string' }) @MinLength(1, { message: 'must be 1 to 200 characters' }) @MaxLength(200, { message: 'must be 1 to 200 characters' })
  title!: string;

  /** The document's text; the request body as a whole is at most 64 KiB. */
  @IsString({ message: 'must be a string' }) @MinLength(1, { message: 'must not be empty' }) @MaxLength(60_000, { message: 'must be at most 60000 characters' })
  content!: string;
}
