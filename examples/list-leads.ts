/**
 * A typed client of the API: verifies the key, lists the bots, and pages through every lead.
 * The types come from the OpenAPI document (`npm run client:generate`); the calls go through
 * openapi-fetch, so paths, parameters and answers are checked by the compiler.
 *
 *   BASE_URL=http://localhost:3000 API_KEY=svc_sk_... npm run example
 *
 * PAGE_SIZE (1 to 100, default 100) sets the `limit` of each leads request.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './api-types';

type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
type Lead = components['schemas']['LeadResponse'];

function describeError(what: string, status: number, error: ErrorEnvelope | undefined): Error {
  return new Error(`${what} failed with ${status}${error ? ` ${error.error.code}: ${error.error.message} (request ${error.error.requestId})` : ''}`);
}

async function main(): Promise<void> {
  const baseUrl = process.env.BASE_URL ?? 'http://localhost:3000';
  const apiKey = process.env.API_KEY;
  if (!apiKey) throw new Error('Set API_KEY to a secret key (svc_sk_...), and BASE_URL to the service (default http://localhost:3000).');

  const pageSize = Number(process.env.PAGE_SIZE ?? 100);
  const client = createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey } });

  const verified = await client.GET('/api/v1/verify');
  if (!verified.data) throw describeError('GET /api/v1/verify', verified.response.status, verified.error);
  const { tenant, plan } = verified.data;
  console.log(`Key valid for ${tenant.name} (${tenant.slug}), plan ${plan.name}: up to ${plan.botsLimit} bots, ${plan.messagesLimit} messages a month.`);
  console.log(
    `Rate limit: ${verified.response.headers.get('X-RateLimit-Remaining')} of ${verified.response.headers.get('X-RateLimit-Limit')} requests left this hour.`,
  );

  const bots = await client.GET('/api/v1/bots');
  if (!bots.data) throw describeError('GET /api/v1/bots', bots.response.status, bots.error);
  console.log(`\n${bots.data.bots.length} bot(s):`);
  for (const bot of bots.data.bots) {
    console.log(
      `  ${bot.isActive ? 'active  ' : 'inactive'} ${bot.name} (${bot.language}): ${bot.conversationCount} conversations, ${bot.messageCount} messages`,
    );
  }

  // Paging (SPEC 4.5): repeat with offset increased by limit while pagination.hasMore is true.
  const leads: Lead[] = [];
  let pages = 0;
  let total = 0;
  for (let offset = 0, hasMore = true; hasMore; offset += pageSize) {
    const page = await client.GET('/api/v1/leads', { params: { query: { limit: pageSize, offset } } });
    if (!page.data) throw describeError('GET /api/v1/leads', page.response.status, page.error);
    leads.push(...page.data.leads);
    ({ hasMore, total } = page.data.pagination);
    pages++;
  }
  if (leads.length !== total) throw new Error(`Paging returned ${leads.length} leads, but pagination.total is ${total}`);
  console.log(`\n${leads.length} lead(s) in ${pages} page(s) of up to ${pageSize}, newest first:`);
  for (const lead of leads) {
    console.log(
      `  ${lead.createdAt.slice(0, 10)} ${lead.status.padEnd(11)} ${lead.source.padEnd(6)} ${lead.name} <${lead.email}>${lead.company ? `, ${lead.company}` : ''}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
