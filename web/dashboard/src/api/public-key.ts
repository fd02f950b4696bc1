import { api, call } from './client';

/**
 * The tenant's public key in full, for the embed snippet and the "try a question" box. Keys are
 * shown once only, so the dashboard creates one for itself when it needs one and keeps it in this
 * browser (a public key is not a secret: it is in every embedding page's source).
 */
export async function publicKeyFor(tenantId: string): Promise<string> {
  const stored = localStorage.getItem(`dashboard.publicKey.${tenantId}`);
  const { apiKeys } = await call(api.GET('/api/v1/api-keys'));
  if (stored && apiKeys.some((key) => key.type === 'public' && stored.startsWith(key.prefix) && stored.endsWith(key.last4))) return stored;
  const created = await call(api.POST('/api/v1/api-keys', { body: { type: 'public', name: 'Widget (dashboard)' } }));
  localStorage.setItem(`dashboard.publicKey.${tenantId}`, created.key);
  return created.key;
}
