import type { Request } from 'express';
import { ownOrigin } from '../common/http/same-origin.guard';
import type { AppConfig } from '../config/env';

/** The dashboard pages that take an accounts token (API_DECISIONS part 3, Links). */
export function acceptInvitationUrl(request: Request, config: AppConfig, token: string): string {
  return `${ownOrigin(request, config)}/dashboard/invitations/accept?token=${token}`;
}

export function passwordResetUrl(request: Request, config: AppConfig, token: string): string {
  return `${ownOrigin(request, config)}/dashboard/password-reset?token=${token}`;
}
