import { toOpenApi31 } from './openapi.document';

describe('toOpenApi31', () => {
  it('makes a nullable scalar a type list, with null in its enum', () => {
    expect(toOpenApi31({ type: 'string', enum: ['a', 'b'], nullable: true })).toEqual({ type: ['string', 'null'], enum: ['a', 'b', null] });
  });

  it('makes a nullable described reference the referenced schema or null, keeping its description', () => {
    const reply = { type: 'object', description: 'The reply.', allOf: [{ $ref: '#/components/schemas/WidgetReply' }], nullable: true };
    expect(toOpenApi31(reply)).toEqual({ description: 'The reply.', anyOf: [{ $ref: '#/components/schemas/WidgetReply' }, { type: 'null' }] });
  });

  it('makes a nullable bare reference the reference or null', () => {
    expect(toOpenApi31({ $ref: '#/components/schemas/Lead', nullable: true })).toEqual({ anyOf: [{ $ref: '#/components/schemas/Lead' }, { type: 'null' }] });
  });
});
