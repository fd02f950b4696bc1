/**
 * The API's password rules in words, shown under every field that sets one (sign-up, reset,
 * invitation, account) before the first submit: 10 to 256 characters (src/accounts/dto/auth.dto.ts),
 * not a common password, not containing the e-mail's local part (src/accounts/passwords/password-rules.ts).
 */
export const PASSWORD_HINT = 'At least 10 characters, not a common password, and not containing the part of your e-mail address before the @.';
