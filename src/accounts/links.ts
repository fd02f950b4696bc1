import type { AppConfig } from '../config/env';

type LinkConfig = Pick<AppConfig, 'publicOrigin' | 'port' | 'tls'>;

/**
 * The origin of every link the service mails or returns (API_DECISIONS part 4, Links and
 * origins): PUBLIC_URL's, or, outside production (where it may be unset), this machine's own
 * listener. Never the request's Host or X-Forwarded-Host: anyone can send those, and a reset link
 * mailed to a real user on the sender's host would hand the sender that user's token.
 */
export function linkOrigin(config: LinkConfig): string {
  return config.publicOrigin ?? `${config.tls ? 'https' : 'http'}://localhost:${config.port}`;
}

/** The dashboard pages that take an accounts token (API_DECISIONS part 3, Links). */
export function acceptInvitationUrl(config: LinkConfig, token: string): string {
  return `${linkOrigin(config)}/dashboard/invitations/accept?token=${token}`;
}

export function passwordResetUrl(config: LinkConfig, token: string): string {
  return `${linkOrigin(config)}/dashboard/password-reset?token=${token}`;
}
