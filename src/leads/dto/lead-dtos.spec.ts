import { ValidationError } from '../../common/errors/app-error';
import { assertDateRange } from '../../common/paging/date-range';
import { detailsOf, parse } from '../../common/testing/validation-testing';
import { CreateLeadDto } from './create-lead.dto';
import { ListLeadsQueryDto } from './list-leads.query';

const BOT_ID = '0190b6a0-0000-7000-8000-000000000001';
const VALID_LEAD = { name: 'Jane Doe', email: 'jane@example.com' };

describe('the leads DTOs through the validation pipe', () => {
  describe('CreateLeadDto (POST /api/v1/leads body)', () => {
    const body = (fields: Record<string, unknown>) => detailsOf(CreateLeadDto, { ...VALID_LEAD, ...fields }, 'body');

    it('accepts the minimal lead and returns a CreateLeadDto', async () => {
      const dto = await parse(CreateLeadDto, { ...VALID_LEAD }, 'body');
      expect(dto).toBeInstanceOf(CreateLeadDto);
      expect({ ...dto }).toEqual(VALID_LEAD);
    });

    it('accepts every field at its maximum and trims strings and tags', async () => {
      const input = {
        name: `  ${'n'.repeat(200)}  `,
        email: '  jane@example.com ',
        phone: 'p'.repeat(50),
        company: 'c'.repeat(200),
        message: 'm'.repeat(5000),
        botId: BOT_ID,
        tags: Array.from({ length: 20 }, (_, i) => (i === 0 ? ` ${'t'.repeat(50)} ` : ` tag${i} `)),
      };
      const dto = await parse(CreateLeadDto, input, 'body');
      expect({ ...dto }).toEqual({
        name: 'n'.repeat(200),
        email: 'jane@example.com',
        phone: 'p'.repeat(50),
        company: 'c'.repeat(200),
        message: 'm'.repeat(5000),
        botId: BOT_ID,
        tags: ['t'.repeat(50), ...Array.from({ length: 19 }, (_, i) => `tag${i + 1}`)],
      });
    });

    it('counts name length in code points: 200 emoji pass, 201 fail', async () => {
      await expect(parse(CreateLeadDto, { ...VALID_LEAD, name: '😀'.repeat(200) }, 'body')).resolves.toBeInstanceOf(CreateLeadDto);
      expect(await body({ name: '😀'.repeat(201) })).toEqual([{ field: 'name', message: 'must be 1 to 200 characters' }]);
    });

    it.each([
      ['name', undefined, 'must be a string'],
      ['name', 42, 'must be a string'],
      ['name', '', 'must be 1 to 200 characters'],
      ['name', '   ', 'must be 1 to 200 characters'],
      ['name', 'n'.repeat(201), 'must be 1 to 200 characters'],
      ['email', undefined, 'must be a string'],
      ['email', 'not-an-email', 'must be a valid e-mail address'],
      ['email', 'jane@', 'must be a valid e-mail address'],
      ['email', `${'a'.repeat(64)}@${`${'b'.repeat(60)}.`.repeat(3)}ccccc.com`, 'must be at most 254 characters'],
      ['phone', 'p'.repeat(51), 'must be at most 50 characters'],
      ['phone', 5550100, 'must be a string'],
      ['company', 'c'.repeat(201), 'must be at most 200 characters'],
      ['message', 'm'.repeat(5001), 'must be at most 5000 characters'],
      ['botId', 'bot-1', 'must be a UUID'],
      ['botId', 12, 'must be a string'],
      ['tags', 'vip', 'must be an array of strings'],
      ['tags', Array.from({ length: 21 }, (_, i) => `t${i}`), 'must have at most 20 entries'],
      ['tags', ['ok', ''], 'each entry must be 1 to 50 characters'],
      ['tags', ['ok', '   '], 'each entry must be 1 to 50 characters'],
      ['tags', ['t'.repeat(51)], 'each entry must be 1 to 50 characters'],
      ['tags', ['ok', 7], 'each entry must be a string'],
    ])('rejects %s = %j with one detail naming the rule', async (field, value, message) => {
      expect(await body({ [field]: value })).toEqual([{ field, message }]);
    });

    it('rejects unknown fields, including ones the response has', async () => {
      expect(await body({ source: 'widget', status: 'converted' })).toEqual([
        { field: 'source', message: 'is not an allowed field' },
        { field: 'status', message: 'is not an allowed field' },
      ]);
    });

    it('lists every broken field once', async () => {
      const details = await detailsOf(CreateLeadDto, { name: '', email: 'x', phone: 'p'.repeat(51), extra: 1 }, 'body');
      expect(details).toHaveLength(4);
      expect(details).toEqual(
        expect.arrayContaining([
          { field: 'extra', message: 'is not an allowed field' },
          { field: 'name', message: 'must be 1 to 200 characters' },
          { field: 'email', message: 'must be a valid e-mail address' },
          { field: 'phone', message: 'must be at most 50 characters' },
        ]),
      );
    });

    it('never puts the submitted value in a detail', async () => {
      const secret = 'VALUE-7f3a9';
      const details = await detailsOf(
        CreateLeadDto,
        { name: secret.repeat(40), email: `${secret}@`, phone: secret.repeat(10), botId: secret, tags: [secret.repeat(10)], [secret]: secret },
        'body',
      );
      expect(details.length).toBeGreaterThanOrEqual(5);
      for (const detail of details.filter((d) => d.field !== secret)) expect(JSON.stringify(detail)).not.toContain(secret);
      for (const detail of details) expect(detail.message).not.toContain(secret);
    });

    it('does not prefix messages with the property name', async () => {
      for (const detail of await detailsOf(CreateLeadDto, { name: 1, email: 1, phone: 1 }, 'body')) {
        expect(detail.message.startsWith(detail.field)).toBe(false);
      }
    });
  });

  describe('ListLeadsQueryDto (GET /api/v1/leads query)', () => {
    const query = (params: Record<string, unknown>) => detailsOf(ListLeadsQueryDto, params, 'query');

    it('accepts no parameters', async () => {
      expect({ ...(await parse(ListLeadsQueryDto, {}, 'query')) }).toEqual({});
    });

    it('turns every parameter into its type', async () => {
      const dto = await parse(ListLeadsQueryDto, { limit: '100', offset: '0', botId: BOT_ID, from: '2026-01-01', to: '2026-01-31', search: 'acme' }, 'query');
      expect({ ...dto }).toEqual({
        limit: 100,
        offset: 0,
        botId: BOT_ID,
        from: new Date('2026-01-01T00:00:00.000Z'),
        to: new Date('2026-01-31T23:59:59.999Z'),
        search: 'acme',
      });
    });

    it('reads date-times with their offset', async () => {
      const dto = await parse(ListLeadsQueryDto, { from: '2026-01-01T10:00:00+02:00', to: '2026-01-01T12:30:00.250Z' }, 'query');
      expect(dto.from).toEqual(new Date('2026-01-01T08:00:00.000Z'));
      expect(dto.to).toEqual(new Date('2026-01-01T12:30:00.250Z'));
    });

    it.each([
      ['limit', '0', 'must be at least 1'],
      ['limit', '101', 'must be at most 100'],
      ['limit', 'abc', 'must be an integer'],
      ['limit', '1.5', 'must be an integer'],
      ['limit', '1e2', 'must be an integer'],
      ['limit', '', 'must be an integer'],
      ['limit', ['10', '20'], 'must be an integer'],
      ['offset', 'x', 'must be an integer'],
      ['botId', 'not-a-uuid', 'must be a UUID'],
      ['from', 'yesterday', 'must be an ISO 8601 date or date-time'],
      ['from', '2026-02-30', 'must be an ISO 8601 date or date-time'],
      ['from', '2026-02-30T00:00:00Z', 'must be an ISO 8601 date or date-time'],
      ['from', '2026-01-01T25:00:00Z', 'must be an ISO 8601 date or date-time'],
      ['to', '2026-01-01T10:00:00', 'must be an ISO 8601 date or date-time'],
      ['to', '01/31/2026', 'must be an ISO 8601 date or date-time'],
      ['search', '', 'must be 1 to 200 characters'],
      ['search', 's'.repeat(201), 'must be 1 to 200 characters'],
      ['search', ['a', 'b'], 'must be a string'],
      ['sort', 'createdAt', 'is not an allowed field'],
    ])('rejects %s=%j', async (field, value, message) => {
      expect(await query({ [field]: value })).toEqual([{ field, message }]);
    });

    it.each([
      ['limit', '-1', /^must be (an integer|at least 1)$/],
      ['offset', '-1', /^must be (an integer|0 or more)$/],
    ])('rejects %s=%s', async (field, value, message) => {
      const details = await query({ [field]: value });
      expect(details).toEqual([{ field, message: expect.stringMatching(message) }]);
    });

    it('accepts a search of 200 characters and with wildcard characters', async () => {
      expect((await parse(ListLeadsQueryDto, { search: 's'.repeat(200) }, 'query')).search).toHaveLength(200);
      expect((await parse(ListLeadsQueryDto, { search: '50%_off\\' }, 'query')).search).toBe('50%_off\\');
    });

    it('leaves from later than to to assertDateRange, which rejects it on from', async () => {
      const dto = await parse(ListLeadsQueryDto, { from: '2026-02-01', to: '2026-01-31' }, 'query');
      let error: unknown;
      try {
        assertDateRange(dto);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).details).toEqual([{ field: 'from', message: expect.any(String) }]);
      expect(() =>
        assertDateRange(Object.assign(new ListLeadsQueryDto(), { from: new Date('2026-01-31T00:00:00Z'), to: new Date('2026-01-31T00:00:00Z') })),
      ).not.toThrow();
    });
  });
});
