import type { ApiPrincipal } from '../common/http/request-context';
import { PLANS } from './plans';

export interface VerificationResponse {
  valid: true;
  tenant: { id: string; name: string; slug: string };
  plan: { name: string; botsLimit: number; messagesLimit: number };
}

export function toVerificationResponse(principal: ApiPrincipal): VerificationResponse {
  const plan = PLANS[principal.tenant.plan];
  return {
    valid: true,
    tenant: { id: principal.tenant.id, name: principal.tenant.name, slug: principal.tenant.slug },
    plan: { name: plan.name, botsLimit: plan.botsLimit, messagesLimit: plan.messagesLimit },
  };
}
