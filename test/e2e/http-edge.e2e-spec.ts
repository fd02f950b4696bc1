import { createTestApp, TestApp } from '../support/create-test-app';
import { createTenant, TestTenant } from '../support/factories';
import { listen, parseRaw, RawConnection } from '../support/raw-connection';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What Node's HTTP parser and body reading refuse still answers in the envelope, and stops early. */
describe('HTTP edge cases: the parser, huge validation answers, chunked bodies', () => {
  let t: TestApp;
  let port: number;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
    port = await listen(t);
    tenant = await createTenant(t, { plan: 'enterprise' });
  });
  afterAll(() => t.close());

  async function exchange(raw: string): Promise<ReturnType<typeof parseRaw> & { closed: boolean }> {
    const connection = await RawConnection.open(port);
    try {
      connection.write(raw);
      const text = await connection.waitFor(/\r\n\r\n\{.*\}\}$/s, 3_000);
      await connection.waitForClose(2_000);
      return { ...parseRaw(text), closed: connection.closed };
    } finally {
      connection.destroy();
    }
  }

  function expectEnvelopeHeaders(headers: Record<string, string>): void {
    expect(headers['x-request-id']).toMatch(UUID);
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['cache-control']).toBe('no-store');
    expect(headers.connection).toBe('close');
  }

  it('answers headers over 16 KiB with 431 HEADERS_TOO_LARGE in the envelope, then closes', async () => {
    const answer = await exchange(`GET /api/v1/verify HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer.status).toBe(431);
    expectEnvelopeHeaders(answer.headers);
    expect(answer.json).toEqual({
      error: { code: 'HEADERS_TOO_LARGE', message: 'The request headers are larger than 16 KiB.', status: 431, requestId: answer.headers['x-request-id'] },
    });
    expect(answer.closed).toBe(true);
  });

  it.each([
    ['a header line without a colon', 'GET /api/v1/verify HTTP/1.1\r\nHost: localhost\r\nThis is not a header\r\n\r\n'],
    ['a request line that is not HTTP', 'HELLO WORLD\r\n\r\n'],
    ['a Content-Length that is not a number', 'POST /api/v1/leads HTTP/1.1\r\nHost: localhost\r\nContent-Length: ten\r\n\r\n'],
  ])('answers %s with 400 VALIDATION_ERROR in the envelope, then closes', async (_, raw) => {
    const answer = await exchange(raw);
    expect(answer.status).toBe(400);
    expectEnvelopeHeaders(answer.headers);
    expect(answer.json).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: 'The request is not valid HTTP.',
        status: 400,
        requestId: answer.headers['x-request-id'],
        details: [{ field: 'request', message: 'is not a valid HTTP request' }],
      },
    });
  });

  it('lists at most 20 validation details and counts the rest', async () => {
    const body = Object.fromEntries(Array.from({ length: 4_500 }, (_, i) => [`u${i}`, 0]));
    const response = await t
      .http()
      .post('/api/v1/leads')
      .set('X-API-Key', tenant.key)
      .send({ name: 'Ada', email: 'ada@example.com', ...body });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toHaveLength(20);
    expect(response.body.error.details[0]).toEqual({ field: expect.stringMatching(/^u\d+$/), message: 'is not an allowed field' });
    expect(response.body.error.moreDetails).toBe(4_480);
    expect(response.text.length).toBeLessThan(3_000);
  });

  it("cuts an unknown field's name to 64 characters and an ellipsis: a 3 MB name is not echoed", async () => {
    const name = 'x'.repeat(3_000_000);
    const response = await t
      .http()
      .post('/api/v1/leads/import')
      .set('X-API-Key', tenant.key)
      .send({ leads: [{ name: 'Ada', email: 'ada@example.com', [name]: 1 }] });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([{ field: `${`leads[0].${name}`.slice(0, 64)}…`, message: 'is not an allowed field' }]);
    expect(response.text.length).toBeLessThan(1_000);
  });

  it('cuts a long name between characters, never inside a surrogate pair', async () => {
    const name = `${'a'.repeat(63)}${'😀'.repeat(10)}`;
    const response = await t
      .http()
      .post('/api/v1/leads')
      .set('X-API-Key', tenant.key)
      .send({ name: 'Ada', email: 'ada@example.com', [name]: 1 })
      .expect(400);
    expect(response.body.error.details).toEqual([{ field: `${'a'.repeat(63)}…`, message: 'is not an allowed field' }]);
  });

  it('keeps every detail, and no count, up to 20', async () => {
    const body = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`unknown${i}`, 1]));
    const response = await t
      .http()
      .post('/api/v1/leads')
      .set('X-API-Key', tenant.key)
      .send({ name: 'Ada', email: 'ada@example.com', ...body })
      .expect(400);
    expect(response.body.error.details).toHaveLength(20);
    expect(response.body.error).not.toHaveProperty('moreDetails');
  });

  it('refuses a chunked body as soon as it passes 64 KiB, and stops reading it', async () => {
    const connection = await RawConnection.open(port);
    try {
      connection.write(
        `POST /api/v1/leads HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${tenant.key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      // Up to 20 MB: the answer must come long before, and the server must hang up.
      const sent = await connection.sendChunkedUntilAnswered(20 * 1024 * 1024);
      const answer = parseRaw(await connection.waitFor(/\r\n\r\n\{.*\}\}$/s, 3_000));
      expect(answer.status).toBe(413);
      expect(answer.json.error).toEqual({
        code: 'PAYLOAD_TOO_LARGE',
        message: 'The request body is larger than 64 KiB.',
        status: 413,
        requestId: answer.headers['x-request-id'],
      });
      expect(answer.headers.connection).toBe('close');
      expect(sent).toBeLessThan(1024 * 1024);
      await connection.waitForClose(2_000);
    } finally {
      connection.destroy();
    }
  });
});
