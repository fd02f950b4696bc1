import { parseIsoDate, parseIsoDateTime } from './iso-date';

describe('ISO 8601 dates', () => {
  it.each([
    ['0001-01-01', '0001-01-01T00:00:00.000Z'],
    ['0050-06-15', '0050-06-15T00:00:00.000Z'],
    ['0099-12-31', '0099-12-31T00:00:00.000Z'],
    ['2026-11-21', '2026-11-21T00:00:00.000Z'],
    ['9999-12-31', '9999-12-31T00:00:00.000Z'],
  ])('reads the date %s as that day, early years included', (value, iso) => {
    expect(parseIsoDate(value)?.toISOString()).toBe(iso);
  });

  it.each(['0000-01-01', '2026-02-30', '0050-02-29', '2026-13-01', '26-11-21'])('refuses %s', (value) => {
    expect(parseIsoDate(value)).toBeUndefined();
  });

  it('reads date-times of the years 0001-0099 as those years', () => {
    expect(parseIsoDateTime('0050-06-15T10:30:00Z')?.toISOString()).toBe('0050-06-15T10:30:00.000Z');
    expect(parseIsoDateTime('0000-06-15T10:30:00Z')).toBeUndefined();
  });
});
