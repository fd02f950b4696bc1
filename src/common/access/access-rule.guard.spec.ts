import { ExecutionContext, Logger, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { AppError } from '../errors/app-error';
import { AccessCheck, AccessRuleGuard, CallerChecks } from './access-rule.guard';
import { AdminOnly, Public, RequireScopes, VisitorOnly, WidgetOnly } from './access.decorators';

class MixedController {
  @Public() health(): void {}
  @AdminOnly() createTenant(): void {}
  @RequireScopes() verify(): void {}
  @RequireScopes('bots:read') listBots(): void {}
  @WidgetOnly() widgetBot(): void {}
  @VisitorOnly() visitorMessages(): void {}
  forgotten(): void {}
}

@AdminOnly()
class AdminController {
  list(): void {}
  @Public() open(): void {}
}

const contextFor = (controller: Type, handler: (...args: never[]) => unknown): ExecutionContext =>
  new ExecutionContextHost([{ headers: {} }, {}, () => undefined], controller, handler);

/** A check that records its name when it runs, and passes or says no. */
function check(name: string, ran: string[], answer = true): AccessCheck {
  return { canActivate: () => (ran.push(name), answer) };
}

describe('AccessRuleGuard', () => {
  let ran: string[];
  let guard: AccessRuleGuard;
  let logged: jest.SpyInstance;

  beforeEach(() => {
    ran = [];
    const checks: CallerChecks = {
      public: [],
      admin: [check('admin-token', ran)],
      apiKey: [check('api-key', ran), check('plan', ran), check('rate-limit', ran), check('scopes', ran)],
      widget: [check('api-key', ran), check('rate-limit', ran), check('widget-key', ran), check('widget-origin', ran)],
      visitor: [check('api-key', ran), check('rate-limit', ran), check('widget-key', ran), check('widget-origin', ran), check('visitor-token', ran)],
      user: [],
      keyOnUserRoute: [],
      session: [],
      signIn: [],
    };
    guard = new AccessRuleGuard(new Reflector(), checks);
    logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => logged.mockRestore());

  it.each([
    ['public', MixedController.prototype.health, []],
    ['admin', MixedController.prototype.createTenant, ['admin-token']],
    ['API-key without scopes', MixedController.prototype.verify, ['api-key', 'plan', 'rate-limit', 'scopes']],
    ['API-key with scopes', MixedController.prototype.listBots, ['api-key', 'plan', 'rate-limit', 'scopes']],
    ['widget', MixedController.prototype.widgetBot, ['api-key', 'rate-limit', 'widget-key', 'widget-origin']],
    ['visitor', MixedController.prototype.visitorMessages, ['api-key', 'rate-limit', 'widget-key', 'widget-origin', 'visitor-token']],
  ])('runs the checks of a %s route, and only those, in order', async (_, handler, expected) => {
    await expect(guard.canActivate(contextFor(MixedController, handler))).resolves.toBe(true);
    expect(ran).toEqual(expected);
    expect(logged).not.toHaveBeenCalled();
  });

  it('takes a rule declared on the class', async () => {
    await expect(guard.canActivate(contextFor(AdminController, AdminController.prototype.list))).resolves.toBe(true);
    expect(ran).toEqual(['admin-token']);
  });

  it('lets a method-level rule override the class-level one', async () => {
    await expect(guard.canActivate(contextFor(AdminController, AdminController.prototype.open))).resolves.toBe(true);
    expect(ran).toEqual([]);
  });

  it('stops at the first check that throws, and the caller gets its error', async () => {
    const refused = new AppError('INVALID_API_KEY', 'The API key is missing, invalid or expired.');
    const failing = new AccessRuleGuard(new Reflector(), {
      public: [],
      admin: [],
      apiKey: [
        {
          canActivate: () => {
            throw refused;
          },
        },
        check('plan', ran),
      ],
      widget: [],
      visitor: [],
      user: [],
      keyOnUserRoute: [],
      session: [],
      signIn: [],
    });
    await expect(failing.canActivate(contextFor(MixedController, MixedController.prototype.listBots))).rejects.toBe(refused);
    expect(ran).toEqual([]);
  });

  it('refuses with 403 when a check says no without throwing', async () => {
    const saysNo = new AccessRuleGuard(new Reflector(), {
      public: [],
      admin: [check('admin-token', ran, false)],
      apiKey: [],
      widget: [],
      visitor: [],
      user: [],
      keyOnUserRoute: [],
      session: [],
      signIn: [],
    });
    await expect(saysNo.canActivate(contextFor(AdminController, AdminController.prototype.list))).rejects.toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      status: 403,
    });
  });

  it('refuses a route without a rule with 403 and logs which route it is', async () => {
    const error = await guard.canActivate(contextFor(MixedController, MixedController.prototype.forgotten)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403, message: 'This route is not available.' });
    expect(ran).toEqual([]);
    expect(logged).toHaveBeenCalledTimes(1);
    expect(String(logged.mock.calls[0][0])).toContain('MixedController.forgotten');
  });
});
