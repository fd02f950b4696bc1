import { ALL_SCOPES } from '../common/access/scopes';
import { DEMO_LOGIN, type DemoTenant } from './demo-data';

/**
 * What the terminal shows about the demo tenant once the service listens: its keys, a curl line
 * and the widget's demo page on the first start (keys are stored only as digests, so this is the
 * only time they exist in clear), and on later starts how to get new keys.
 */
export function demoBanner(demo: DemoTenant, baseUrl: string, dataDir: string, adminTokenSet: boolean): string {
  const rule = '─'.repeat(78);
  const lines = demo.key ? firstStartLines(demo, baseUrl) : laterStartLines(demo, baseUrl, dataDir, adminTokenSet);
  // The demo tenant's owner, on every start: its password is known on purpose (demo data exists outside production only).
  const dashboard = `Dashboard: ${baseUrl}/dashboard  (sign in as ${DEMO_LOGIN.email} / ${DEMO_LOGIN.password})`;
  return ['', rule, ...lines, dashboard, rule, ''].join('\n') + '\n';
}

function firstStartLines(demo: DemoTenant, baseUrl: string): string[] {
  return [
    'Demo tenant created (plan pro). Its secret key, shown this once:',
    `  ${demo.key}`,
    'Try it:',
    `  curl -s -H "X-API-Key: ${demo.key}" ${baseUrl}/api/v1/bots`,
    ...(demo.widget
      ? [
          'Its public key, for the chat widget (it may call only verify and the widget endpoints):',
          `  ${demo.widget.publicKey}`,
          'The widget on a demo page:',
          `  ${baseUrl}/widget/demo?botId=${demo.widget.botId}&key=${demo.widget.publicKey}`,
        ]
      : []),
  ];
}

function laterStartLines(demo: DemoTenant, baseUrl: string, dataDir: string, adminTokenSet: boolean): string[] {
  const keysUrl = `${baseUrl}/admin/v1/tenants/${demo.tenantId}/api-keys`;
  const post = (body: object) => [
    `  curl -s -X POST -H "Authorization: Bearer $ADMIN_API_TOKEN" -H 'Content-Type: application/json' \\`,
    `    -d '${JSON.stringify(body)}' ${keysUrl}`,
  ];
  return [
    `Demo tenant in ${dataDir} (id ${demo.tenantId}). Its keys were shown on the first start only.`,
    adminTokenSet ? 'A new secret key (with the ADMIN_API_TOKEN this service runs with):' : 'A new key: start with ADMIN_API_TOKEN set (16+ characters), then',
    ...post({ name: 'Demo key', scopes: ALL_SCOPES }),
    'A new public key for the widget (then open /widget/demo?botId=<a bot id>&key=<the key>):',
    ...post({ name: 'Demo widget key', type: 'public', scopes: [] }),
    `Or stop the service, delete ${dataDir} and start again for a fresh demo tenant and keys.`,
  ];
}
