import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { APP_CONFIG, type AppConfig } from '../config/env';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/**
 * Mail through SMTP_URL (nodemailer), for invitations and password resets. Without it nothing is
 * sent: the link is returned where the decisions say so (an invitation's acceptUrl, the admin
 * API's resetUrl) and logged outside production. A failed send is logged, never the request's
 * failure: the link still works, and the person can be sent it again.
 */
@Injectable()
export class Mailer implements OnApplicationShutdown {
  private readonly logger = new Logger(Mailer.name);
  private readonly transport?: Transporter;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    if (config.mail) this.transport = createTransport(config.mail.smtpUrl, { from: config.mail.from });
  }

  get enabled(): boolean {
    return this.transport !== undefined;
  }

  /** Sends (or, without SMTP, logs outside production) a mail whose text carries a link; `secretLink` never reaches a production log. */
  async send(mail: Mail, secretLink: string): Promise<void> {
    if (!this.transport) {
      if (!this.config.production) this.logger.log(`No SMTP_URL: a mail to ${mail.to} was not sent ("${mail.subject}"); its link: ${secretLink}`);
      return;
    }
    try {
      await this.transport.sendMail({ to: mail.to, subject: mail.subject, text: mail.text });
    } catch (error) {
      this.logger.warn(`Mail "${mail.subject}" not sent: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  onApplicationShutdown(): void {
    this.transport?.close();
  }
}
