import { IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { Trim } from '../../common/validation/transforms';
import { Plan, PLAN_NAMES } from '../plans';

const planRule = { message: `must be one of ${PLAN_NAMES.join(', ')}` };

export class CreateTenantDto {
  @Trim()
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must be 1 to 200 characters' })
  @MaxLength(200, { message: 'must be 1 to 200 characters' })
  name!: string;

  @IsString({ message: 'must be a string' })
  @MaxLength(63, { message: 'must be at most 63 characters' })
  @Matches(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: 'must be lowercase letters, digits and single hyphens' })
  slug!: string;

  @IsIn(PLAN_NAMES, planRule)
  plan!: Plan;
}

export class UpdateTenantDto {
  @OptionalNotNull()
  @Trim()
  @IsString({ message: 'must be a string' })
  @MinLength(1, { message: 'must be 1 to 200 characters' })
  @MaxLength(200, { message: 'must be 1 to 200 characters' })
  name?: string;

  @OptionalNotNull()
  @IsIn(PLAN_NAMES, planRule)
  plan?: Plan;
}
