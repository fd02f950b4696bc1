// The stack's floor: an empty NestJS application on the same platform (Express), with no
// middleware, guard, pipe, database or logging, answering verify's JSON from memory. What it
// reaches bounds what any service built on this stack can reach on this machine.
require('reflect-metadata');
const { NestFactory } = require('@nestjs/core');
const { Controller, Get, Module } = require('@nestjs/common');

const answer = {
  valid: true,
  tenant: { id: '00000000-0000-0000-0000-000000000000', name: 'Big Co', slug: 'tenant-1' },
  plan: { name: 'enterprise', botsLimit: 100, messagesLimit: 250000 },
};

class FloorController {
  verify() {
    return answer;
  }
}
Get('verify')(FloorController.prototype, 'verify', Object.getOwnPropertyDescriptor(FloorController.prototype, 'verify'));
Controller('api/v1')(FloorController);

class FloorModule {}
Module({ controllers: [FloorController] })(FloorModule);

NestFactory.create(FloorModule, { logger: false }).then((app) => app.listen(Number(process.env.PORT), '127.0.0.1'));
