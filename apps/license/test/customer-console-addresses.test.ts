import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers.js';

// A linked customer who opens a console address (`/licenses` is the natural one to type) is a
// customer, not an unknown account: they go to their portal, never to "ask to link your account".

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('console addresses opened by a customer', () => {
  it('a customer linked by "Provider user id" who opens /licenses is sent to their licenses', async () => {
    const { customer, session } = await t.customer({ name: 'Linked Carol' });
    const license = await t.createLicense({ customer: customer._id });

    const list = await t.http.get('/licenses').set('Cookie', session.cookie);
    expect(list.status).toBe(303);
    expect(list.headers.location).toBe('/');
    const home = await t.http.get('/').set('Cookie', session.cookie);
    expect(home.text).toContain('Your licenses');
    expect(home.text).toContain(license.key);
    expect(home.text).not.toContain('link your account');

    const one = await t.http.get(`/licenses/${license._id}`).set('Cookie', session.cookie);
    expect(one.status).toBe(303);
    expect(one.headers.location).toBe(`/my-licenses/${license._id}`);
    expect((await t.http.get(`/my-licenses/${license._id}`).set('Cookie', session.cookie)).status).toBe(200);
    for (const path of ['/products', '/audit-log', '/settings']) {
      const res = await t.http.get(path).set('Cookie', session.cookie);
      expect(res.status, path).toBe(303);
      expect(res.headers.location, path).toBe('/');
    }
  });

  it('someone signed in without a customer record still reads the 403 page asking to link the account', async () => {
    const session = await t.signIn('nobody-linked-this-id');
    const res = await t.http.get('/licenses').set('Cookie', session.cookie);
    expect(res.status).toBe(403);
    expect(res.text).toContain('link your account');
  });
});
