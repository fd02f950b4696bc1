// The request DTOs, class-validator and class-transformer decorators as the NestJS validation
// chapter writes them; the global ValidationPipe({ whitelist: true, transform: true }) turns the
// body and the query into these classes and checks them on every request.
const { Type } = require('class-transformer');
const { ArrayMaxSize, IsArray, IsEmail, IsInt, IsOptional, IsString, IsUUID, Length, Max, MaxLength, Min } = require('class-validator');
const { decorateProperty } = require('./decorate.cjs');

/** GET /api/v1/leads?limit&offset (query strings become numbers through @Type). */
class ListLeadsQuery {}
decorateProperty(ListLeadsQuery, 'limit', Number, IsOptional(), Type(() => Number), IsInt(), Min(1), Max(100));
decorateProperty(ListLeadsQuery, 'offset', Number, IsOptional(), Type(() => Number), IsInt(), Min(0));

/** POST /api/v1/leads */
class CreateLeadDto {}
decorateProperty(CreateLeadDto, 'name', String, IsString(), Length(1, 200));
decorateProperty(CreateLeadDto, 'email', String, IsEmail(), MaxLength(254));
decorateProperty(CreateLeadDto, 'phone', String, IsOptional(), IsString(), MaxLength(50));
decorateProperty(CreateLeadDto, 'company', String, IsOptional(), IsString(), MaxLength(200));
decorateProperty(CreateLeadDto, 'message', String, IsOptional(), IsString(), MaxLength(5000));
decorateProperty(CreateLeadDto, 'botId', String, IsOptional(), IsUUID());
decorateProperty(CreateLeadDto, 'tags', Array, IsOptional(), IsArray(), ArrayMaxSize(20), IsString({ each: true }), Length(1, 50, { each: true }));

module.exports = { CreateLeadDto, ListLeadsQuery };
