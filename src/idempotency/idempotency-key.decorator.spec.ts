import { ValidationError } from '../common/errors/app-error';
import { parseIdempotencyKey } from './idempotency-key.decorator';

function rejection(values: string[]): unknown {
  try {
    parseIdempotencyKey(values);
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('parseIdempotencyKey', () => {
  it('is undefined without the header', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it.each([['a'], ['0f8e4c1a-5b7d-4e2f-9a3c-1d2e3f4a5b6c'], ['order 42 / retry #1'], ['~'.repeat(255)], [' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~']])(
    'accepts %j',
    (value) => {
      expect(parseIdempotencyKey([value])).toBe(value);
    },
  );

  it.each([[''], ['k'.repeat(256)], ['clé'], ['tab\there'], ['line\nbreak'], ['\u007f'], ['emoji 🙂']])(
    'refuses %j as not 1 to 255 printable ASCII characters',
    (value) => {
      const error = rejection([value]);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).details).toEqual([{ field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters' }]);
    },
  );

  it('refuses a header sent twice, even with the same value', () => {
    expect((rejection(['a', 'a']) as ValidationError).details).toEqual([{ field: 'Idempotency-Key', message: 'must be sent once' }]);
  });
});
