import { z } from 'zod';

// The notification channels an admin configures at run time, stored in the settings table
// (namespace `notification-channels`), so every instance sends with the same settings. Every
// field is nullable: null means "the environment's value" (SMTP_*, TWILIO_*, TELEGRAM_*,
// NOTIFY_*_TO), so the environment gives the starting values and a field nobody set keeps
// following it.

const text = (max: number) => z.string().max(max).nullable().default(null);
const list = z.array(z.string().max(320)).max(50).nullable().default(null);

export const emailSettingsSchema = z.object({
  enabled: z.boolean().nullable().default(null),
  host: text(253),
  port: z.number().int().min(1).max(65535).nullable().default(null),
  secure: z.boolean().nullable().default(null),
  user: text(320),
  /** Secret: never shown back. */
  pass: text(1000),
  from: text(320),
  to: list,
});
export const smsSettingsSchema = z.object({
  enabled: z.boolean().nullable().default(null),
  accountSid: text(100),
  /** Secret: never shown back. */
  authToken: text(1000),
  from: text(50),
  to: list,
});
export const telegramSettingsSchema = z.object({
  enabled: z.boolean().nullable().default(null),
  /** Secret: never shown back. */
  botToken: text(1000),
  chatId: text(100),
});

export const channelSettingsSchema = z.object({
  email: emailSettingsSchema.default(emailSettingsSchema.parse({})),
  sms: smsSettingsSchema.default(smsSettingsSchema.parse({})),
  telegram: telegramSettingsSchema.default(telegramSettingsSchema.parse({})),
});
export type ChannelSettings = z.infer<typeof channelSettingsSchema>;
export const channelSettingsNamespace = 'notification-channels';

/** The settings in force for each channel: stored values over the environment's. */
export interface EffectiveEmail {
  enabled: boolean;
  host: string;
  port: number;
  secure: boolean;
  user: string;
  pass: string;
  from: string;
  to: string[];
}
export interface EffectiveSms {
  enabled: boolean;
  accountSid: string;
  authToken: string;
  from: string;
  to: string[];
  baseUrl?: string;
}
export interface EffectiveTelegram {
  enabled: boolean;
  botToken: string;
  chatId: string;
  apiUrl?: string;
}
export interface EffectiveChannels {
  email: EffectiveEmail;
  sms: EffectiveSms;
  telegram: EffectiveTelegram;
}

// The forms as the browser sends them: every field a string, a checkbox that is not ticked is
// not sent at all, a blank secret keeps the stored one.
const field = (max: number) => z.string().max(max).optional();
export const emailFormSchema = z.object({
  enabled: field(10),
  host: field(253),
  port: field(10),
  secure: field(10),
  user: field(320),
  pass: field(1000),
  clearPass: field(10),
  from: field(320),
  to: field(2000),
});
export const smsFormSchema = z.object({
  enabled: field(10),
  accountSid: field(100),
  authToken: field(1000),
  clearAuthToken: field(10),
  from: field(50),
  to: field(2000),
});
export const telegramFormSchema = z.object({
  enabled: field(10),
  botToken: field(1000),
  clearBotToken: field(10),
  chatId: field(100),
});
export type EmailForm = z.infer<typeof emailFormSchema>;
export type SmsForm = z.infer<typeof smsFormSchema>;
export type TelegramForm = z.infer<typeof telegramFormSchema>;
export const testFormSchema = z.object({ recipient: field(2000) });
