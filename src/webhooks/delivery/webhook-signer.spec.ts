import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret } from '../webhook-secret';
import { signatureHeaders } from './webhook-signer';

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
