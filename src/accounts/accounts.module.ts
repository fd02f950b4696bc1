import { Module } from '@nestjs/common';
import { SameOriginGuard } from '../common/http/same-origin.guard';
import { InvalidationModule } from '../invalidation/invalidation.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { KeyOnUserRouteGuard } from './key-on-user-route.guard';
import { LoginThrottle } from './login-throttle';
import { PasswordHasher } from './passwords/password-hasher';
import { RoleGuard } from './role.guard';
import { SessionCache } from './sessions/session-cache';
import { SessionGuard } from './sessions/session.guard';
import { SessionsRepository } from './sessions/sessions.repository';
import { SessionsService } from './sessions/sessions.service';
import { TenantMembershipGuard } from './tenant-membership.guard';
import { UsersRepository } from './users/users.repository';

/** The people of a tenant: users, sessions, roles, and the checks of a user's requests. */
@Module({
  imports: [InvalidationModule, TenancyModule],
  controllers: [AuthController],
  providers: [UsersRepository, SessionsRepository, SessionCache, SessionsService, PasswordHasher, LoginThrottle, AuthService, SessionGuard, SameOriginGuard, TenantMembershipGuard, RoleGuard, KeyOnUserRouteGuard],
  exports: [UsersRepository, SessionsService, PasswordHasher, SessionGuard, SameOriginGuard, TenantMembershipGuard, RoleGuard, KeyOnUserRouteGuard],
})
export class AccountsModule {}
