import { Injectable, Logger } from '@nestjs/common';
import { InvalidApiKeyError, NotFoundError, PlanUpgradeRequiredError, ValidationError } from '../../common/errors/app-error';
import type { KeyPrincipal } from '../../common/http/request-context';
import { PrismaService, PrismaTransaction } from '../../database/prisma.service';
import { userIdOfActor, type Actor } from '../../events/actor';
import { EventRecorder } from '../../events/event-recorder';
import type { ApiKeyType } from '../../generated/prisma/enums';
import { PLANS } from '../plans';
import { TenantsRepository } from '../tenants.repository';
import { generateApiKey, isWellFormedApiKey, KEY_PREFIX } from './api-key-format';
import { InvalidationBus } from '../../invalidation/invalidation-bus';
import { ApiKeyCache } from './api-key-cache';
import { ApiKeyHasher } from './api-key-hasher';
import { ApiKeyRow, ApiKeysRepository, type AuthenticatedKeyRow } from './api-keys.repository';
import type { Scope } from '../../common/access/scopes';

const LAST_USED_RESOLUTION_MS = 60_000;

export interface CreateKeyInput {
  name: string;
  scopes: Scope[];
  type: ApiKeyType;
  expiresAt: Date | null;
}

@Injectable()
export class ApiKeysService {
  private readonly logger = new Logger(ApiKeysService.name);

  constructor(
    private readonly prisma: PrismaService,
    private readonly keys: ApiKeysRepository,
    private readonly tenants: TenantsRepository,
    private readonly events: EventRecorder,
    private readonly hasher: ApiKeyHasher,
    private readonly cache: ApiKeyCache,
    private readonly bus: InvalidationBus,
  ) {}

  /** Resolves a presented key to its tenant and scopes, or throws 401 INVALID_API_KEY. */
  async authenticate(presented: string | undefined, now = new Date()): Promise<KeyPrincipal> {
    if (!presented || !isWellFormedApiKey(presented)) throw new InvalidApiKeyError();
    const digest = this.hasher.digest(presented);
    const row = await this.cache.getOrLookUp(digest, now.getTime(), (key) => this.keys.findByDigest(key));
    if (!row || (row.expiresAt && row.expiresAt <= now)) throw new InvalidApiKeyError();
    this.recordUse(row, now);
    return principalOf(row);
  }

  /** Creates a key; the full key is in this answer only and is never stored or shown again. */
  async createKey(tenantId: string, input: CreateKeyInput, actor: Actor, now = new Date()): Promise<{ apiKey: ApiKeyRow; key: string }> {
    if (input.expiresAt && input.expiresAt <= now) throw ValidationError.field('expiresAt', 'must be in the future');
    // A public key is published in web pages: it reaches verify and the widget whatever it holds,
    // so scopes on it would only mislead whoever reads the key list.
    if (input.type === 'public' && input.scopes.length)
      throw ValidationError.field('scopes', 'must be empty for a public key (it may call only verify and the widget endpoints)');
    return this.prisma.$transaction(async (tx) => {
      const tenant = await this.tenants.findById(tenantId, tx);
      if (!tenant) throw new NotFoundError('Tenant');
      // A public key serves the widget, which every plan has; a secret key is API access (Pro or higher).
      if (input.type === 'secret' && !PLANS[tenant.plan].apiAccess)
        throw new PlanUpgradeRequiredError('Secret API keys require the Pro plan or higher; public keys (the widget) work on every plan.');
      const key = generateApiKey(input.type);
      const apiKey = await this.keys.create(
        tenantId,
        {
          name: input.name,
          type: input.type,
          scopes: [...new Set(input.scopes)],
          digest: this.hasher.digest(key),
          prefix: KEY_PREFIX[input.type],
          last4: key.slice(-4),
          expiresAt: input.expiresAt,
          createdBy: actor.name,
          createdByUserId: userIdOfActor(actor.name) ?? null,
        },
        tx,
      );
      await this.events.record(tx, tenantId, actor, {
        action: 'api_key.created',
        targetId: apiKey.id,
        data: { name: apiKey.name, type: apiKey.type, scopes: apiKey.scopes, expiresAt: apiKey.expiresAt?.toISOString() ?? null },
      });
      return { apiKey, key };
    });
  }

  async listKeys(tenantId: string): Promise<ApiKeyRow[]> {
    if (!(await this.tenants.findById(tenantId))) throw new NotFoundError('Tenant');
    return this.keys.list(tenantId);
  }

  async revokeKey(tenantId: string, keyId: string, actor: Actor, now = new Date()): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      if (!(await this.keys.delete(tenantId, keyId, now, tx))) throw new NotFoundError('API key');
      await this.events.record(tx, tenantId, actor, { action: 'api_key.deleted', targetId: keyId });
    });
    await this.bus.tenantChanged(tenantId);
  }

  /**
   * In the caller's transaction: deletes the keys the user created in the tenant, each audited as
   * its own deletion; their ids. Once committed, keysRevoked() makes every instance refuse them.
   */
  async revokeKeysCreatedBy(tx: PrismaTransaction, tenantId: string, userId: string, actor: Actor, now = new Date()): Promise<string[]> {
    const ids = await this.keys.lockCreatedBy(tenantId, userId, tx);
    for (const keyId of ids) {
      await this.keys.delete(tenantId, keyId, now, tx);
      await this.events.record(tx, tenantId, actor, { action: 'api_key.deleted', targetId: keyId, data: { reason: 'creator_removed' } });
    }
    return ids;
  }

  /** After keys were revoked in a committed transaction: the key caches of every instance drop the tenant's keys. */
  keysRevoked(tenantId: string): Promise<void> {
    return this.bus.tenantChanged(tenantId);
  }

  /** lastUsedAt is informational: written at most once a minute, off the request's path. */
  private recordUse(row: ApiKeyRow, now: Date): void {
    if (row.lastUsedAt && row.lastUsedAt.getTime() >= now.getTime() - LAST_USED_RESOLUTION_MS) return;
    const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    // The row may be the cached one: marking it used now keeps the other requests of this second,
    // served from the cache, from each sending the same (already satisfied) update.
    row.lastUsedAt = now;
    this.keys.touchLastUsed(row.tenantId, row.id, now, staleBefore).catch((error: unknown) => {
      this.logger.warn(`Could not record key use: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}

// One principal per cached key row, shared by the requests it serves (frozen: nobody may change it).
const principals = new WeakMap<AuthenticatedKeyRow, KeyPrincipal>();

/** What the request learns of its caller: the key's tenant and the key's id, type and scopes. */
function principalOf(row: AuthenticatedKeyRow): KeyPrincipal {
  let principal = principals.get(row);
  if (!principal) {
    const scopes = Object.freeze([...row.scopes]);
    principal = Object.freeze({
      kind: 'apiKey' as const,
      tenant: Object.freeze({ id: row.tenant.id, name: row.tenant.name, slug: row.tenant.slug, plan: row.tenant.plan }),
      scopes,
      apiKey: Object.freeze({ id: row.id, type: row.type, scopes }),
    });
    principals.set(row, principal);
  }
  return principal;
}
