import { ALL_SCOPES } from '../common/access/scopes';
import { DEMO_LOGIN, type DemoTenant } from './demo-data';

/**
 * What the terminal shows about the demo tenant once the service listens: its key and a curl line
 * on the first start (the key is stored only as a digest, so this is the only time it exists in
 * clear), and on later starts how to get a new key.
 */
export function demoBanner(demo: DemoTenant, baseUrl: string, dataDir: string): string {
  const rule = '─'.repeat(78);
  const lines = demo.key
    ? [
        'Demo tenant created (plan pro). Its secret key, shown this once:',
        `  ${demo.key}`,
        'Try it:',
        `  curl -s -H "X-API-Key: ${demo.key}" ${baseUrl}/api/v1/bots`,
      ]
    : [
        `Demo tenant in ${dataDir} (id ${demo.tenantId}). Its key was shown on the first start only.`,
        'A new key: start with ADMIN_API_TOKEN set (16+ characters), then',
        `  curl -s -X POST -H "Authorization: Bearer $ADMIN_API_TOKEN" -H 'Content-Type: application/json' \\`,
        `    -d '{"name":"Demo key","scopes":${JSON.stringify(ALL_SCOPES)}}' ${baseUrl}/admin/v1/tenants/${demo.tenantId}/api-keys`,
        `Or stop the service, delete ${dataDir} and start again for a fresh demo tenant and key.`,
      ];
  const dashboard = [`Dashboard: ${baseUrl}/dashboard  (sign in as ${DEMO_LOGIN.email} / ${DEMO_LOGIN.password})`];
  return ['', rule, ...lines, ...dashboard, rule, ''].join('\n') + '\n';
}
