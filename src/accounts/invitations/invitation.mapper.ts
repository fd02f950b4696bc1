import { ApiProperty } from '@nestjs/swagger';
import type { Role } from '../../generated/prisma/enums';
import { ROLES } from '../roles';
import type { InvitationRow } from './invitations.repository';

const STATES = ['pending', 'accepted', 'expired'] as const;
type InvitationState = (typeof STATES)[number];

export class InvitationResponse {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'email' })
  email: string;

  @ApiProperty({ enum: ROLES, enumName: 'Role' })
  role: Role;

  @ApiProperty({ enum: STATES, description: '`pending` until accepted or past `expiresAt`.' })
  status: InvitationState;

  @ApiProperty({ description: 'Who invited: `user:<id>` or `admin-api`.' })
  invitedBy: string;

  @ApiProperty({ format: 'date-time' })
  expiresAt: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class CreatedInvitationResponse {
  @ApiProperty({ type: InvitationResponse })
  invitation: InvitationResponse;

  @ApiProperty({ format: 'uri', description: 'The link to accept it: shown in this answer only (and mailed when the service has SMTP_URL).' })
  acceptUrl: string;
}

export class InvitationListResponse {
  @ApiProperty({ type: [InvitationResponse], description: 'Newest first; deleted ones are not listed.' })
  invitations: InvitationResponse[];
}

export function toInvitationResponse(row: InvitationRow, now = new Date()): InvitationResponse {
  const status: InvitationState = row.acceptedAt ? 'accepted' : row.expiresAt <= now ? 'expired' : 'pending';
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status,
    invitedBy: row.invitedBy,
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
  };
}
