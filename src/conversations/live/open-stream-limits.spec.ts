import { AppError } from '../../common/errors/app-error';
import { OpenStreamLimits } from './open-stream-limits';

describe('OpenStreamLimits', () => {
  const perConversation = (id: string) => ({ key: `conversation:${id}`, max: 2, label: 'per conversation' });
  const perAddress = (ip: string) => ({ key: `ip:${ip}`, max: 3, label: 'per client address' });

  it('admits a stream while every count is under its limit, and names the full one in the 429', () => {
    const limits = new OpenStreamLimits();
    limits.claim([perConversation('a'), perAddress('1.2.3.4')]);
    limits.claim([perConversation('a'), perAddress('1.2.3.4')]);
    let refused: unknown;
    try {
      limits.claim([perConversation('a'), perAddress('5.6.7.8')]);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429, headers: { 'Retry-After': '5' } });
    expect((refused as AppError).message).toBe('At most 2 live streams per conversation may be open at once.');
  });

  it('counts nothing for a refused stream, and gives a closed stream’s places back once however often it is released', () => {
    const limits = new OpenStreamLimits();
    limits.claim([perConversation('a'), perAddress('1.2.3.4')]);
    const release = limits.claim([perConversation('a'), perAddress('1.2.3.4')]);
    // Refused by the conversation's limit: the address's count must not have moved.
    expect(() => limits.claim([perConversation('a'), perAddress('1.2.3.4')])).toThrow(AppError);
    limits.claim([perConversation('b'), perAddress('1.2.3.4')]);
    expect(() => limits.claim([perConversation('c'), perAddress('1.2.3.4')])).toThrow('per client address');

    release();
    release();
    limits.claim([perConversation('a'), perAddress('9.9.9.9')]);
    expect(() => limits.claim([perConversation('a'), perAddress('9.9.9.9')])).toThrow('per conversation');
  });
});
