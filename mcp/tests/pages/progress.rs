//! Long calls talk while they run and stop when the client gives up, as seen by a client not
//! written here (the official Python MCP SDK): a `wait_for` that times out has reported
//! progress, and one the SDK abandons (it sends `notifications/cancelled`) is dropped.

use crate::corpus::corpus;
use crate::{Agent, BOTH};

#[test]
fn a_long_wait_for_reports_progress_and_a_cancelled_one_is_dropped() {
    for family in BOTH {
        let mut agent = Agent::new(family);
        let tab = agent.open(&corpus().url("/login.html"));
        let run = crate::sdk_client::run("progress_client.py", agent.browser, &[tab.to_string()]);
        let (stdout, server_log) = (&run.stdout, &run.server_log);
        assert!(run.success, "{}", run.context);
        let progress: usize = stdout
            .lines()
            .find_map(|l| l.strip_prefix("progress "))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!(
            progress >= 2,
            "{}: a 3.5 s wait_for reported {progress} progress notifications:\n{stdout}",
            family.name()
        );
        assert!(stdout.contains("wait_for: still working"), "{stdout}");
        assert!(stdout.contains("cancel: raised"), "{stdout}");
        assert!(stdout.contains("after cancel ok"), "{stdout}");
        assert!(
            server_log.contains("call cancelled by the client") && server_log.contains("wait_for"),
            "{}: the server did not drop the cancelled call:\n{server_log}",
            family.name()
        );
        agent.close(tab);
    }
}
