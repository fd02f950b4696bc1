import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { AppModule } from '../../src/app.module';
import { loadConfig } from '../../src/config/env';
import type { RateLimitPlans } from '../../src/rate-limit/plan-limits';
import { configureApp } from '../../src/configure-app';
import type { DatabaseConnection } from '../../src/database/database-connection';
import { PrismaService } from '../../src/database/prisma.service';
import type { EmbeddingsWorkerOptions } from '../../src/answering/embeddings/embeddings-options';
import type { DeliveryOptions } from '../../src/webhooks/delivery/delivery-options';
import type { PrivacyOptions } from '../../src/privacy/privacy-options';
import type { LiveStreamOptions } from '../../src/conversations/live/live-stream-options';
import { openTestDatabase } from './test-database';

export const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';

const TEST_ENV = {
  ADMIN_API_TOKEN: ADMIN_TOKEN,
  API_KEY_PEPPER: 'e2e-pepper-0123456789abcdef',
  WIDGET_TOKEN_SECRET: 'e2e-widget-token-secret-0123456789abcdef',
  LOG_LEVEL: 'silent',
  // The dashboard's origin: what a signed-in user's requests carry in Origin (test/support/users.ts).
  PUBLIC_URL: 'http://dashboard.test',
  // Suites other than the rate-limit ones test their own behaviour, not the limiter, so they run
  // with limits they cannot reach; the rate-limit suites pass the production or small tables.
  AUTH_FAILURE_LIMIT: '100000',
  PUBLIC_KEY_RATE_LIMIT: '100000',
  WIDGET_SESSION_RATE_LIMIT: '100000',
  SIGNUP_RATE_LIMIT: '100000',
  NEW_PASSWORD_RATE_LIMIT: '100000',
  // No suite but the delivery ones sends webhooks (and none may reach beyond 127.0.0.1).
  WEBHOOK_WORKER: 'false',
  // Erasures and the retention sweep run only in the privacy suites (which limit them to their tenants).
  PRIVACY_WORKER: 'false',
};

const unreachable = { requestsPerHour: 1_000_000, burstPerSecond: 1_000_000 };
export const GENEROUS_RATE_LIMITS: RateLimitPlans = { free: unreachable, pro: unreachable, business: unreachable, enterprise: unreachable };

export interface TestApp {
  app: INestApplication;
  prisma: PrismaService;
  connection: DatabaseConnection;
  /** supertest against the app's HTTP server (plain HTTP from loopback, allowed outside production). */
  http(): ReturnType<typeof request>;
  /** The admin API with its bearer token. */
  admin(): { get(url: string): request.Test; post(url: string): request.Test; patch(url: string): request.Test; delete(url: string): request.Test };
  close(): Promise<void>;
}

/**
 * Boots the real app (same modules, same configureApp as main.ts) on the run's test database.
 * `env` overrides configuration variables, e.g. NODE_ENV=production or TRUST_PROXY.
 */
export async function createTestApp(
  env: Record<string, string | undefined> = {},
  options: {
    rateLimitPlans?: RateLimitPlans;
    connection?: DatabaseConnection;
    webhookDelivery?: Partial<DeliveryOptions>;
    privacy?: Partial<PrivacyOptions>;
    embeddings?: Partial<EmbeddingsWorkerOptions>;
    liveStreams?: Partial<LiveStreamOptions>;
  } = {},
): Promise<TestApp> {
  const config = loadConfig({ ...TEST_ENV, ...env });
  // A second instance can share the first one's database, as replicas behind a load balancer do.
  const connection = options.connection ?? (await openTestDatabase());
  const moduleRef = await Test.createTestingModule({
    imports: [
      AppModule.forRoot(config, connection, {
        rateLimitPlans: options.rateLimitPlans ?? GENEROUS_RATE_LIMITS,
        webhookDelivery: options.webhookDelivery,
        privacy: options.privacy,
        embeddings: options.embeddings,
        liveStreams: options.liveStreams,
      }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: ['error', 'warn'] });
  configureApp(app, config);
  await app.init();
  const server = app.getHttpServer();
  const withToken = (test: request.Test) => test.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  return {
    app,
    prisma: app.get(PrismaService),
    connection,
    http: () => request(server),
    admin: () => ({
      get: (url) => withToken(request(server).get(url)),
      post: (url) => withToken(request(server).post(url)),
      patch: (url) => withToken(request(server).patch(url)),
      delete: (url) => withToken(request(server).delete(url)),
    }),
    close: () => app.close(),
  };
}
