import { Injectable, PipeTransform } from '@nestjs/common';
import { NotFoundError } from '../common/errors/app-error';
import { isUuid } from '../common/validation/uuid';

/** A tenant id in an admin path that cannot be a tenant's is a 404, without a query. */
@Injectable()
export class TenantIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!isUuid(value)) throw new NotFoundError('Tenant');
    return value;
  }
}
