import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { DATABASE_CONNECTION, type DatabaseConnection } from './database-connection';
import { DatabaseTimeZones } from './database-time-zones';
import { PrismaService } from './prisma.service';
import { SchemaStatus } from './schema-status';

@Global()
@Module({ providers: [PrismaService, DatabaseTimeZones, SchemaStatus], exports: [PrismaService, DatabaseTimeZones, SchemaStatus] })
export class DatabaseModule implements OnApplicationShutdown {
  constructor(
    private readonly prisma: PrismaService,
    @Inject(DATABASE_CONNECTION) private readonly connection: DatabaseConnection,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.prisma.$disconnect();
    await this.connection.close();
  }
}
