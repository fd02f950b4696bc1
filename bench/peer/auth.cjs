// Authentication as the NestJS guide's guards chapter has it: a global guard that reads the
// X-API-Key header, hashes it (HMAC-SHA256 with the pepper, hex: the digest bench/seed.mjs stores,
// as the service computes it) and looks the key and its tenant up with Prisma on every request
// (no cache), then checks the route's scopes from metadata (the guide's Roles pattern).
const { createHmac } = require('node:crypto');
const { createParamDecorator, ForbiddenException, Injectable, SetMetadata, UnauthorizedException } = require('@nestjs/common');
const { Reflector } = require('@nestjs/core');
const { decorateClass, paramTypes } = require('./decorate.cjs');
const { PrismaService } = require('./prisma.cjs');

const SCOPES = 'scopes';
/** `@Scopes('leads:read')` on a handler. */
const Scopes = (...scopes) => SetMetadata(SCOPES, scopes);

/** `@CurrentTenant() tenant`: the tenant the guard found. */
const CurrentTenant = createParamDecorator((_data, context) => context.switchToHttp().getRequest().apiKey.tenant);

class ApiKeyGuard {
  constructor(prisma, reflector) {
    this.prisma = prisma;
    this.reflector = reflector;
  }

  async canActivate(context) {
    const request = context.switchToHttp().getRequest();
    const presented = request.header('x-api-key');
    if (!presented) throw new UnauthorizedException('Missing API key');
    const digest = createHmac('sha256', process.env.API_KEY_PEPPER).update(presented).digest('hex');
    const apiKey = await this.prisma.apiKey.findUnique({ where: { digest }, include: { tenant: true } });
    if (!apiKey || apiKey.deletedAt || (apiKey.expiresAt && apiKey.expiresAt <= new Date())) throw new UnauthorizedException('Invalid API key');
    const required = this.reflector.getAllAndOverride(SCOPES, [context.getHandler(), context.getClass()]) ?? [];
    if (!required.every((scope) => apiKey.scopes.includes(scope))) throw new ForbiddenException('Insufficient scope');
    request.apiKey = apiKey;
    return true;
  }
}
decorateClass(ApiKeyGuard, Injectable(), paramTypes(PrismaService, Reflector));

module.exports = { ApiKeyGuard, CurrentTenant, Scopes };
