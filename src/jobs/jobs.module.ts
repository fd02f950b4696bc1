import { Global, Module } from '@nestjs/common';
import { JobRunner } from './job-runner';

/** The one runner of background work, for every feature to register its kind with. */
@Global()
@Module({ providers: [JobRunner], exports: [JobRunner] })
export class JobsModule {}
