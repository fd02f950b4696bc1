import type { ExecutionContext, Type } from '@nestjs/common';
import { AdminOnly } from '../common/access/access.decorators';
import { httpContext, thrownBy } from '../common/testing/guard-testing';
import { AppError } from '../common/errors/app-error';
import type { AppRequest } from '../common/http/request-context';
import { AppConfig, loadConfig } from '../config/env';
import { AdminTokenGuard } from './admin-token.guard';

const TOKEN = 'admin-token-0123456789abcdef';

const config = (adminApiToken: string | undefined): AppConfig => ({ ...loadConfig({}), adminApiToken });

@AdminOnly()
class AdminController {
  list(): void {}
}

function request(headers: Record<string, string> = {}): AppRequest & { header: jest.Mock } {
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const header = jest.fn((name: string) => lower.get(name.toLowerCase()));
  return { header } as unknown as AppRequest & { header: jest.Mock };
}

function contextFor(controller: Type, handler: (...args: never[]) => unknown, req: AppRequest): ExecutionContext {
  return httpContext(controller, handler, req);
}


describe('AdminTokenGuard', () => {
  const guard = new AdminTokenGuard(config(TOKEN));
  const adminContext = (headers: Record<string, string>) => contextFor(AdminController, AdminController.prototype.list, request(headers));

  it('lets an admin route through with the configured bearer token', () => {
    expect(guard.canActivate(adminContext({ Authorization: `Bearer ${TOKEN}` }))).toBe(true);
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
  ])('refuses %s with 401 UNAUTHORIZED', (_, headers) => {
    const error = thrownBy(() => guard.canActivate(adminContext(headers)));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401, message: 'A valid admin bearer token is required.' });
    expect((error as AppError).message).not.toContain(TOKEN);
  });

  it('applies a class-level AdminOnly to methods without their own rule', () => {
    const error = thrownBy(() => guard.canActivate(contextFor(AdminController, AdminController.prototype.list, request())));
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });

  it('answers 404 NOT_FOUND on admin routes when no token is configured, whatever is sent', () => {
    const disabled = new AdminTokenGuard(config(undefined));
    for (const headers of [{}, { Authorization: `Bearer ${TOKEN}` }, { Authorization: 'Bearer ' }] as Record<string, string>[]) {
      const error = thrownBy(() => disabled.canActivate(adminContext(headers)));
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    }
  });

  it('an empty configured token disables the admin API rather than accepting an empty bearer', () => {
    const disabled = new AdminTokenGuard(config(''));
    expect(thrownBy(() => disabled.canActivate(adminContext({ Authorization: 'Bearer ' })))).toMatchObject({ status: 404 });
  });
});
