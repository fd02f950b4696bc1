import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret } from '../webhook-secret';
import { signatureHeaders, webhookBody } from './webhook-signer';

describe('signatureHeaders', () => {
  const body = JSON.stringify({ id: 'evt', type: 'lead.created', data: { object: { name: 'Zoë' } } });

  it('signs so that the standardwebhooks package verifies it, with every live secret', () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = signatureHeaders('01a2-event', Math.floor(Date.now() / 1000), body, [current, previous]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });
});

describe('webhookBody', () => {
  it('is the bytes JSON.stringify gives for the parsed event, from the stored JSON text', () => {
    const data = { object: { id: 'lead', name: 'Zoë "Q" \\ \u2028', tags: ['a'], n: 1.5, none: null }, previousAttributes: { name: 'Z' } };
    const event = { id: '0190b6a0-0000-7000-8000-000000000001', type: 'lead.updated', createdAt: new Date('2026-11-26T01:02:03.004Z') };
    expect(webhookBody({ ...event, data: JSON.stringify(data) })).toBe(
      JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data }),
    );
  });
});
