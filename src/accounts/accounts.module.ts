import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { MailModule } from '../mail/mail.module';
import { UsageModule } from '../usage/usage.module';
import { AccountLimits } from './account-limits';
import { AuthLinksController } from './auth-links.controller';
import { InvitationsController } from './invitations/invitations.controller';
import { InvitationsRepository } from './invitations/invitations.repository';
import { InvitationsService } from './invitations/invitations.service';
import { MembersController } from './members/members.controller';
import { MembersRepository } from './members/members.repository';
import { MembersService } from './members/members.service';
import { PasswordResetsRepository } from './password-resets/password-resets.repository';
import { PasswordResetsService } from './password-resets/password-resets.service';
import { TenantAccountService } from './tenant/tenant-account.service';
import { TenantController } from './tenant/tenant.controller';
import { SameOriginGuard } from '../common/http/same-origin.guard';
import { InvalidationModule } from '../invalidation/invalidation.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { KnowledgeModule } from '../knowledge/knowledge.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { LoginThrottle } from './login-throttle';
import { PasswordHasher } from './passwords/password-hasher';
import { PermissionGuard } from './permission.guard';
import { DeviceCookie } from './sessions/device-cookie';
import { SessionCache } from './sessions/session-cache';
import { SessionGuard } from './sessions/session.guard';
import { SessionsRepository } from './sessions/sessions.repository';
import { SessionsService } from './sessions/sessions.service';
import { TenantMembershipGuard } from './tenant-membership.guard';
import { UsersRepository } from './users/users.repository';

/** The people of a tenant: users, sessions, roles, and the checks of a user's requests. */
@Module({
  imports: [InvalidationModule, TenancyModule, BotsModule, UsageModule, MailModule, KnowledgeModule],
  controllers: [AuthController, AuthLinksController, TenantController, MembersController, InvitationsController],
  providers: [
    UsersRepository,
    SessionsRepository,
    SessionCache,
    SessionsService,
    PasswordHasher,
    LoginThrottle,
    DeviceCookie,
    AccountLimits,
    AuthService,
    SessionGuard,
    SameOriginGuard,
    TenantMembershipGuard,
    PermissionGuard,
    TenantAccountService,
    MembersRepository,
    MembersService,
    InvitationsRepository,
    InvitationsService,
    PasswordResetsRepository,
    PasswordResetsService,
  ],
  exports: [UsersRepository, SessionsService, PasswordHasher, PasswordResetsService, SessionGuard, SameOriginGuard, TenantMembershipGuard, PermissionGuard],
})
export class AccountsModule {}
