import { PipeTransform } from '@nestjs/common';
import { NotFoundError } from '../errors/app-error';
import { isUuid } from './uuid';

/**
 * A path id that cannot be a row's (not a UUID) is that resource's 404, without a query:
 * `@Param('id', IdOf('Lead'))`. One pipe per resource name, made once.
 */
class IdPipe implements PipeTransform<string, string> {
  constructor(private readonly resource: string) {}

  transform(value: string): string {
    if (!isUuid(value)) throw new NotFoundError(this.resource);
    return value.toLowerCase();
  }
}

const pipes = new Map<string, IdPipe>();

export function IdOf(resource: string): IdPipe {
  let pipe = pipes.get(resource);
  if (!pipe) pipes.set(resource, (pipe = new IdPipe(resource)));
  return pipe;
}
