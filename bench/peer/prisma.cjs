// PrismaService as Prisma's NestJS recipe writes it: the client extended as an injectable,
// connected when the module starts. The client is the service's own generated one (the same
// schema; dist/ holds its compiled copy, which plain JavaScript can require), on the
// @prisma/adapter-pg driver adapter as the service uses it (src/database/), with pg's default pool
// of 10 connections (the service's DATABASE_POOL_SIZE default is 10 too).
const { Injectable } = require('@nestjs/common');
const { PrismaPg } = require('@prisma/adapter-pg');
const { PrismaClient } = require('../../dist/generated/prisma/client.js');
const { decorateClass, paramTypes } = require('./decorate.cjs');

class PrismaService extends PrismaClient {
  constructor() {
    super({ adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL }) });
  }

  async onModuleInit() {
    await this.$connect();
  }

  async onModuleDestroy() {
    await this.$disconnect();
  }
}
decorateClass(PrismaService, Injectable(), paramTypes());

module.exports = { PrismaService };
