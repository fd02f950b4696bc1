/**
 * The documented body of an action endpoint that takes none (OpenAPI only): `{}` or nothing; any
 * field is refused (400) by UndeclaredInputGuard, as for every handler without `@Body()`.
 */
export class EmptyBodyDto {}
