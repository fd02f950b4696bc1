import { ValidationArguments, ValidatorConstraint, ValidatorConstraintInterface } from 'class-validator';

/** Length in Unicode code points, not UTF-16 units, so an emoji counts as one character. */
@ValidatorConstraint({ name: 'codePointLength' })
export class CodePointLength implements ValidatorConstraintInterface {
  validate(value: unknown, args?: ValidationArguments): boolean {
    const [min, max] = args?.constraints as [number, number];
    if (typeof value !== 'string') return false;
    const length = [...value].length;
    return length >= min && length <= max;
  }

  defaultMessage(args?: ValidationArguments): string {
    const [min, max] = args?.constraints as [number, number];
    return min > 0 ? `must be ${min} to ${max} characters` : `must be at most ${max} characters`;
  }
}
