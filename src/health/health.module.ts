import { Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { ShutdownState } from '../lifecycle/shutdown-state';
import { HealthController } from './health.controller';
import { ReadinessIndicators } from './readiness.indicators';

@Global()
@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [ShutdownState, ReadinessIndicators],
  exports: [ShutdownState],
})
export class HealthModule {}
