import { ApiProperty } from '@nestjs/swagger';
import type { Role } from '../../generated/prisma/enums';
import { ROLES } from '../roles';
import type { MemberRow } from './members.repository';

export class MemberResponse {
  @ApiProperty({ format: 'uuid' })
  userId: string;

  @ApiProperty({ format: 'email' })
  email: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: ROLES, enumName: 'Role' })
  role: Role;

  @ApiProperty({ format: 'date-time', description: 'When the user joined the tenant.' })
  createdAt: string;
}

export class MemberEnvelope {
  @ApiProperty({ type: MemberResponse })
  member: MemberResponse;
}

export class MemberListResponse {
  @ApiProperty({ type: [MemberResponse], description: 'Oldest member first.' })
  members: MemberResponse[];
}

export function toMemberResponse(row: MemberRow): MemberResponse {
  return { userId: row.user.id, email: row.user.email, name: row.user.name, role: row.role, createdAt: row.createdAt.toISOString() };
}
