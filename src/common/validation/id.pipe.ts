import { PipeTransform } from '@nestjs/common';
import { NotFoundError } from '../errors/app-error';
import { isUuid } from './uuid';

/**
 * A path id that cannot be a row's (not a UUID) is that resource's 404, without a query:
 * `@Param('id', IdOf('Lead'))`. One pipe per resource name, made once.
 *
 * The contract puts validation (400) before the resource (404), but Nest runs a handler's
 * parameter pipes at once: a malformed id waits one turn of the event loop before it is refused,
 * so that the validation of the query and body (microtasks only) settles first and wins. A well-
 * formed id passes at once: the wait is on the error path only.
 */
class IdPipe implements PipeTransform<string, string | Promise<string>> {
  constructor(private readonly resource: string) {}

  transform(value: string): string | Promise<string> {
    if (isUuid(value)) return value.toLowerCase();
    return new Promise((_, reject) => setImmediate(() => reject(new NotFoundError(this.resource))));
  }
}

const pipes = new Map<string, IdPipe>();

export function IdOf(resource: string): IdPipe {
  let pipe = pipes.get(resource);
  if (!pipe) pipes.set(resource, (pipe = new IdPipe(resource)));
  return pipe;
}
