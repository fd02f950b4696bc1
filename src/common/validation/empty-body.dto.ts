/** The body of an action endpoint that takes none: any field is an unknown one (400); no body is the same as `{}`. */
export class EmptyBodyDto {}
