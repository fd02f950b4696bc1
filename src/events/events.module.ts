import { Global, Module } from '@nestjs/common';
import { Changes } from './changes';
import { EventRecorder } from './event-recorder';
import { LiveFeed } from './live-feed';

@Global()
@Module({ providers: [EventRecorder, LiveFeed, Changes], exports: [EventRecorder, LiveFeed, Changes] })
export class EventsModule {}
