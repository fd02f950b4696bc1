import type { ExecutionContext, Type } from '@nestjs/common';
import { AdminOnly } from '../common/access/access.decorators';
import { httpContext } from '../common/testing/guard-testing';
import { AppError } from '../common/errors/app-error';
import type { AppRequest } from '../common/http/request-context';
import { AppConfig, loadConfig } from '../config/env';
import { FailedAuthLimiter } from '../rate-limit/failed-auth.limiter';
import { MemoryRateLimitStore } from '../rate-limit/memory-rate-limit.store';
import { AdminTokenGuard } from './admin-token.guard';

const TOKEN = 'admin-token-0123456789abcdef';

const config = (adminApiToken: string | undefined): AppConfig => ({ ...loadConfig({}), adminApiToken });

@AdminOnly()
class AdminController {
  list(): void {}
}

function request(headers: Record<string, string> = {}, ip = '192.0.2.1'): AppRequest & { header: jest.Mock } {
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const header = jest.fn((name: string) => lower.get(name.toLowerCase()));
  return { header, ip } as unknown as AppRequest & { header: jest.Mock };
}

const limiter = (limit = 1_000) => new FailedAuthLimiter(new MemoryRateLimitStore(), { limit, ttlMs: 60_000 });

/** The error an async guard rejects with; fails the test when it lets the request through. */
async function rejectionOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the guard to throw');
}

function contextFor(controller: Type, handler: (...args: never[]) => unknown, req: AppRequest): ExecutionContext {
  return httpContext(controller, handler, req);
}

describe('AdminTokenGuard', () => {
  const guard = new AdminTokenGuard(config(TOKEN), limiter());
  const adminContext = (headers: Record<string, string>) => contextFor(AdminController, AdminController.prototype.list, request(headers));

  it('lets an admin route through with the configured bearer token', async () => {
    await expect(guard.canActivate(adminContext({ Authorization: `Bearer ${TOKEN}` }))).resolves.toBe(true);
  });

  it.each([
    ['no Authorization header', {}],
    ['an empty header', { Authorization: '' }],
    ['a wrong token', { Authorization: 'Bearer wrong-token-0123456789abcd' }],
    ['a short token', { Authorization: 'Bearer x' }],
    ['a prefix of the token', { Authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ['the token with a suffix', { Authorization: `Bearer ${TOKEN}0` }],
    ['the token without a scheme', { Authorization: TOKEN }],
    ['the Basic scheme', { Authorization: `Basic ${TOKEN}` }],
    ['an empty bearer', { Authorization: 'Bearer ' }],
    ['the token in another header', { 'X-Admin-Token': TOKEN, 'X-API-Key': TOKEN }],
  ])('refuses %s with 401 UNAUTHORIZED', async (_, headers) => {
    const error = await rejectionOf(() => guard.canActivate(adminContext(headers)));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401, message: 'A valid admin bearer token is required.' });
    expect((error as AppError).message).not.toContain(TOKEN);
  });

  it('applies a class-level AdminOnly to methods without their own rule', async () => {
    const error = await rejectionOf(() => guard.canActivate(contextFor(AdminController, AdminController.prototype.list, request())));
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });

  it('answers 404 NOT_FOUND on admin routes when no token is configured, whatever is sent', async () => {
    const disabled = new AdminTokenGuard(config(undefined), limiter());
    for (const headers of [{}, { Authorization: `Bearer ${TOKEN}` }, { Authorization: 'Bearer ' }] as Record<string, string>[]) {
      const error = await rejectionOf(() => disabled.canActivate(adminContext(headers)));
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    }
  });

  it('an empty configured token disables the admin API rather than accepting an empty bearer', async () => {
    const disabled = new AdminTokenGuard(config(''), limiter());
    expect(await rejectionOf(() => disabled.canActivate(adminContext({ Authorization: 'Bearer ' })))).toMatchObject({ status: 404 });
  });

  it('answers 429 with Retry-After per client IP once wrong tokens exceed the limit, and then refuses the right token too, before comparing it', async () => {
    const limited = new AdminTokenGuard(config(TOKEN), limiter(2));
    const wrong = (ip: string) => contextFor(AdminController, AdminController.prototype.list, request({ Authorization: 'Bearer wrong' }, ip));
    expect(await rejectionOf(() => limited.canActivate(wrong('192.0.2.7')))).toMatchObject({ status: 401 });
    expect(await rejectionOf(() => limited.canActivate(wrong('192.0.2.7')))).toMatchObject({ status: 401 });
    const blocked = await rejectionOf(() => limited.canActivate(wrong('192.0.2.7')));
    expect(blocked).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(Number((blocked as AppError).headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    const right = contextFor(AdminController, AdminController.prototype.list, request({ Authorization: `Bearer ${TOKEN}` }, '192.0.2.7'));
    expect(await rejectionOf(() => limited.canActivate(right))).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(await rejectionOf(() => limited.canActivate(wrong('192.0.2.8')))).toMatchObject({ status: 401 });
  });
});
