import { IsIn, IsString } from 'class-validator';
import { PageQueryDto } from '../paging/pagination';

/** A query class without fields: every parameter is an unknown one. */
class NoQueryDto {}
import { detailsOf, parse } from '../testing/validation-testing';

describe('createValidationPipe', () => {
  describe('a query class without fields', () => {
    it('accepts the empty query, with or without a prototype', async () => {
      expect(await parse(NoQueryDto, {}, 'query')).toBeInstanceOf(NoQueryDto);
      expect(await parse(NoQueryDto, Object.create(null), 'query')).toBeInstanceOf(NoQueryDto);
    });

    it('refuses any parameter as not allowed', async () => {
      expect(await detailsOf(NoQueryDto, { limit: '5' }, 'query')).toEqual([{ field: 'limit', message: 'is not an allowed field' }]);
      expect(await detailsOf(NoQueryDto, JSON.parse('{"__proto__":"1"}'), 'query')).toEqual([expect.objectContaining({ field: expect.any(String) })]);
    });
  });

  describe('an empty query', () => {
    class RequiredMetricQuery {
      @IsString()
      @IsIn(['messages'])
      metric: string;
    }

    it('is an instance of the class when its empty instance is valid (every parameter optional)', async () => {
      const page = await parse(PageQueryDto, {}, 'query');
      expect(page).toBeInstanceOf(PageQueryDto);
      expect({ ...page }).toEqual({});
    });

    it('is refused, every time, when the class requires a parameter', async () => {
      for (let i = 0; i < 2; i++) expect(await detailsOf(RequiredMetricQuery, {}, 'query')).toEqual([{ field: 'metric', message: expect.any(String) }]);
    });
  });

  describe('PageQueryDto', () => {
    it.each([
      [{ limit: '1' }, { limit: 1 }],
      [{ limit: '100' }, { limit: 100 }],
      [{ offset: '0' }, { offset: 0 }],
      [{ offset: '2147483647' }, { offset: 2147483647 }],
      [{}, {}],
    ])('accepts %j', async (params, expected) => {
      expect({ ...(await parse(PageQueryDto, params, 'query')) }).toEqual(expected);
    });

    it.each([
      [{ limit: '0' }, 'limit', 'must be at least 1'],
      [{ limit: '101' }, 'limit', 'must be at most 100'],
      [{ limit: '99999999999999999999' }, 'limit', 'must be an integer'],
      [{ limit: ' 5' }, 'limit', 'must be an integer'],
      [{ limit: '0x10' }, 'limit', 'must be an integer'],
      [{ offset: '2147483648' }, 'offset', 'must be at most 2147483647'],
      [{ offset: '1.0' }, 'offset', 'must be an integer'],
      [{ page: '2' }, 'page', 'is not an allowed field'],
    ])('rejects %j', async (params, field, message) => {
      expect(await detailsOf(PageQueryDto, params, 'query')).toEqual([{ field, message }]);
    });

    it('never clamps: both bad values are reported', async () => {
      expect(await detailsOf(PageQueryDto, { limit: '500', offset: 'abc' }, 'query')).toEqual([
        { field: 'limit', message: 'must be at most 100' },
        { field: 'offset', message: 'must be an integer' },
      ]);
    });
  });
});
