import { IdOf } from '../common/validation/id.pipe';

/** A tenant id in an admin path that cannot be a tenant's is a 404, without a query. */
export const TenantIdPipe = IdOf('Tenant');
