// The peer: a typical NestJS + Prisma implementation of verify, list bots, the leads page and
// create lead, so that the benchmark measures the service against what a user would otherwise
// run. Everything is as the documentation sets it up: a global ValidationPipe({ whitelist: true,
// transform: true }), a global guard that looks the key up with Prisma on every request,
// @nestjs/throttler with its default in-memory storage, nestjs-pino with its defaults (a log line
// per request; bench/servers.mjs sends stdout to /dev/null, as for the service).
//   DATABASE_URL=... API_KEY_PEPPER=... PORT=3406 node bench/peer/main.cjs
// Plain CommonJS with the decorators applied as tsc emits them (./decorate.cjs): no build step.
require('reflect-metadata');
const { Module, ValidationPipe } = require('@nestjs/common');
const { APP_GUARD, NestFactory } = require('@nestjs/core');
const { ThrottlerGuard, ThrottlerModule } = require('@nestjs/throttler');
const { Logger, LoggerModule } = require('nestjs-pino');
const { ApiKeyGuard } = require('./auth.cjs');
const { BotsController, LeadsController, VerifyController } = require('./controllers.cjs');
const { decorateClass } = require('./decorate.cjs');
const { PrismaService } = require('./prisma.cjs');

class AppModule {}
decorateClass(
  AppModule,
  Module({
    imports: [
      LoggerModule.forRoot(),
      // A limit the benchmark never reaches: the throttler's cost is measured, never a refusal.
      ThrottlerModule.forRoot([{ ttl: 60_000, limit: 1_000_000_000 }]),
    ],
    controllers: [VerifyController, BotsController, LeadsController],
    providers: [PrismaService, { provide: APP_GUARD, useClass: ThrottlerGuard }, { provide: APP_GUARD, useClass: ApiKeyGuard }],
  }),
);

async function bootstrap() {
  const app = await NestFactory.create(AppModule, { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, transform: true }));
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT ?? 3406), '127.0.0.1');
}

bootstrap();
