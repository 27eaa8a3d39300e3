import { describe, it, expect } from 'vitest';
import { findSensitive } from '../../src-main/core/feedback/sensitive.js';

describe('sensitive feedback text', () => {
  it.each([
    ['jwt', 'passport eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJBIn0.c2lnbmF0dXJl expired'],
    ['private_key', '-----BEGIN OPENSSH PRIVATE KEY----- found'],
    ['private_key', '-----BEGIN RSA PRIVATE KEY-----'],
    ['token', 'credential ark_Xk3jT9qLm2Vb8nR4sW1yZ0aC6dE5fG7hJ2kL4mN9pQ failed'],
    ['token', 'owner token aro_Xk3jT9qLm2Vb8nR4sW1yZ0aC6dE5fG7hJ2kL4mN9pQ'],
    ['token', 'key sk-proj-abcdefghijklmnop1234'],
    ['token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnop'],
    ['token', 'slack xoxb-123456789012-abcdefghijkl'],
    ['token', 'AKIAIOSFODNN7EXAMPLE in env'],
    ['token', 'AIzaSyA1234567890abcdefghijklmnopqrstu'],
    ['token', 'Authorization: Bearer abcdefghijklmnop0123'],
    ['token', 'blob Zx9Qw3Er7Ty1Ui5Op2As8Df4Gh6Jk0Lz appeared'],
    ['token', 'sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    ['secret_assignment', 'api_key=abcd1234efgh'],
    ['secret_assignment', 'password: hunter22'],
    ['secret_assignment', 'client_secret = "s3cr3tvalue"'],
    ['credential_url', 'https://user:pa55word@example.com/x'],
    ['credential_url', 'https://example.com/x?token=abc123def'],
    ['credential_url', 'http://127.0.0.1:7337/mcp?key=whatever'],
    ['email', 'mail alice@example.com now'],
    ['email', 'ops.team+alerts@corp.example.co.uk'],
    ['user_path', 'read /home/alice/project/notes.txt'],
    ['user_path', 'read /Users/bob/repo'],
    ['user_path', 'read C:\\Users\\carol\\repo\\x.ts'],
    ['user_path', 'read ~dave/repo/x.ts'],
    ['user_path', 'read /root/.ssh/id_ed25519'],
    ['code_quote', 'it failed at ```const x = 1```'],
    ['code_quote', 'the handler did function run() { return 1; }'],
    ['code_quote', 'const result = await client.call(x)'],
    ['code_quote', 'SELECT body FROM messages WHERE id = 1'],
    ['code_quote', 'see `await core.db.prepare(sql).get(roomId, plate, now)` here'],
    ['code_quote', 'x = f(a[0], {b: (c) => d(e)}); g(h) <i> j;'],
    ['message_quote', 'the user wrote "please deploy the staging branch tonight and then email the notes to all"'],
    ['message_quote', '> quoted message line'],
    ['message_quote', 'line\nline\nline\nline\nline'],
  ])('%s: %j', (kind, text) => {
    expect(findSensitive(text)).toBe(kind);
  });

  it.each([
    'send_message returned INTERNAL twice; the status update was not delivered to the room.',
    'The board update failed after 3 attempts (HTTP 500), so the task stayed in doing.',
    'Version v1.2.3 of the client saw it; retrying after 2.5 s did not help.',
    "It's blocking: the handoff didn't reach the successor, e.g. the review couldn't start.",
    'Error err_01j9zq6xkq3v4m5n6p7r8s9t0w on room_01j9zq6xkq3v4m5n6p7r8s9t0w and task_01j9zq6xkq3v4m5n6p7r8s9t0w.',
    'The tool read_board returned blocked_by as an empty list instead of the open prerequisite.',
    'The note said "stop" and the agent stopped.',
    'Wrote to /tmp/agent-rooms-test/blobs without trouble.',
    'PAYLOAD_TOO_LARGE at 300 KiB; the presigned flow worked instead.',
    'The token bucket refused the call; RATE_LIMITED with retry_after_ms.',
    'Password reset is not part of this tool.',
  ])('accepts %j', (text) => {
    expect(findSensitive(text)).toBeUndefined();
  });
});
