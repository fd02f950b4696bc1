import { Inject, Injectable } from '@nestjs/common';
import { PrismaClient } from '../generated/prisma/client';
import { DATABASE_CONNECTION, type DatabaseConnection } from './database-connection';

/** Prisma Client on the configured driver adapter; repositories inject this. */
@Injectable()
export class PrismaService extends PrismaClient {
  constructor(@Inject(DATABASE_CONNECTION) connection: DatabaseConnection) {
    super({ adapter: connection.adapterFactory });
  }
}

export type PrismaTransaction = Parameters<Parameters<PrismaService['$transaction']>[0]>[0];
