#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "cgroup/hierarchy.h"
#include "exit_code.h"
#include "fake_cgroup.h"

namespace memcg_statctl {
namespace {

using testing::FakeCgroupBackend;

TEST(CgroupPaths, LayoutOfLeavesAtDepth) {
    const auto l = plan_layout(42, 3, 3);
    EXPECT_EQ(l.top, "memcg-statctl.42");
    EXPECT_EQ(l.intermediates,
              (std::vector<std::string>{"memcg-statctl.42", "memcg-statctl.42/level1",
                                        "memcg-statctl.42/level1/level2"}));
    EXPECT_EQ(l.leaves, (std::vector<std::string>{"memcg-statctl.42/level1/level2/leaf0",
                                                  "memcg-statctl.42/level1/level2/leaf1",
                                                  "memcg-statctl.42/level1/level2/leaf2"}));
    const auto flat = plan_layout(7, 1, 1);
    EXPECT_EQ(flat.intermediates, (std::vector<std::string>{"memcg-statctl.7"}));
    EXPECT_EQ(flat.leaves, (std::vector<std::string>{"memcg-statctl.7/leaf0"}));
    EXPECT_THROW(plan_layout(7, 0, 1), ToolError);
    EXPECT_THROW(plan_layout(7, 1, 0), ToolError);
}

TEST(CgroupPaths, TopGroupOwner) {
    EXPECT_EQ(top_group_owner("memcg-statctl.1234"), 1234);
    EXPECT_FALSE(top_group_owner("memcg-statctl."));
    EXPECT_FALSE(top_group_owner("memcg-statctl.12a"));
    EXPECT_FALSE(top_group_owner("memcg-statctl.0"));
    EXPECT_FALSE(top_group_owner("system.slice"));
}

TEST(CgroupPaths, FindsCgroup2Mount) {
    EXPECT_EQ(find_cgroup2_mount("proc /proc proc rw 0 0\n"
                                 "cgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0\n"
                                 "cgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n"),
              std::filesystem::path("/sys/fs/cgroup/unified"));
    EXPECT_FALSE(find_cgroup2_mount("proc /proc proc rw 0 0\n"));
}

TEST(CgroupPaths, ListsController) {
    EXPECT_TRUE(lists_controller("cpu io memory\n", "memory"));
    EXPECT_FALSE(lists_controller("cpu io memory_foo\n", "memory"));
    EXPECT_FALSE(lists_controller("", "memory"));
}

TEST(CgroupHierarchy, EnablesMemoryTopDownAndRemovesBottomUp) {
    FakeCgroupBackend fake;
    const auto root = fake.mount();
    {
        CgroupHierarchy h(fake, 2, 2, 99);
        EXPECT_EQ(read_file(root / "cgroup.subtree_control"), "+memory\n");
        EXPECT_EQ(read_file(root / "memcg-statctl.99/cgroup.subtree_control"), "+memory\n");
        EXPECT_EQ(read_file(root / "memcg-statctl.99/level1/cgroup.subtree_control"), "+memory\n");
        // Leaves delegate nothing (they hold the tasks) but have memory.* files.
        EXPECT_EQ(read_file(h.leaf_dir(1) / "cgroup.subtree_control"), "");
        EXPECT_TRUE(std::filesystem::exists(h.leaf_dir(1) / "memory.stat"));
        EXPECT_EQ(h.leaf_dir(0), root / "memcg-statctl.99/level1/leaf0");
        h.attach(1, 12345678); // not a real pid: kill() on it fails harmlessly
        EXPECT_EQ(read_file(h.leaf_dir(1) / "cgroup.procs"), "12345678\n");
        FakeCgroupBackend::write(h.leaf_dir(1) / "cgroup.procs", ""); // "task exited"
    }
    EXPECT_EQ(fake.log, (std::vector<std::string>{
                            "create memcg-statctl.99",
                            "create memcg-statctl.99/level1",
                            "create memcg-statctl.99/level1/leaf0",
                            "create memcg-statctl.99/level1/leaf1",
                            "attach memcg-statctl.99/level1/leaf1",
                            "remove memcg-statctl.99/level1/leaf1",
                            "remove memcg-statctl.99/level1/leaf0",
                            "remove memcg-statctl.99/level1",
                            "remove memcg-statctl.99",
                        }));
    EXPECT_FALSE(std::filesystem::exists(root / "memcg-statctl.99"));
}

TEST(CgroupHierarchy, KeepsExistingSubtreeControl) {
    FakeCgroupBackend fake;
    FakeCgroupBackend::write(fake.mount() / "cgroup.subtree_control", "cpu memory\n");
    const CgroupHierarchy h(fake, 1, 1, 5);
    EXPECT_EQ(read_file(fake.mount() / "cgroup.subtree_control"), "cpu memory\n");
}

TEST(CgroupHierarchy, FailureHalfwayRemovesWhatWasCreated) {
    FakeCgroupBackend fake;
    // A file where level1 should go makes its creation fail after the top group exists.
    std::filesystem::create_directory(fake.mount() / "memcg-statctl.8");
    FakeCgroupBackend::write(fake.mount() / "memcg-statctl.8/level1", "in the way");
    EXPECT_ANY_THROW(CgroupHierarchy(fake, 1, 2, 8));
    EXPECT_EQ(fake.log.back(), "remove memcg-statctl.8");
}

TEST(CgroupLeftovers, RemovesGroupsOfDeadOwnersOnly) {
    FakeCgroupBackend fake;
    const auto root = fake.mount();
    for (const auto* rel :
         {"memcg-statctl.111", "memcg-statctl.111/level1", "memcg-statctl.111/level1/leaf0",
          "memcg-statctl.222", "memcg-statctl.222/leaf0", "system.slice"}) {
        fake.create(rel);
    }
    const auto left = remove_leftover_groups(fake, [](pid_t pid) { return pid == 222; });
    ASSERT_EQ(left.size(), 1U);
    EXPECT_EQ(left[0].name, "memcg-statctl.111");
    EXPECT_EQ(left[0].owner, 111);
    EXPECT_TRUE(left[0].removed) << left[0].error;
    EXPECT_FALSE(std::filesystem::exists(root / "memcg-statctl.111"));
    EXPECT_TRUE(std::filesystem::exists(root / "memcg-statctl.222/leaf0"));
    EXPECT_TRUE(std::filesystem::exists(root / "system.slice"));
    // Deepest first.
    const std::vector<std::string> tail(fake.log.end() - 3, fake.log.end());
    EXPECT_EQ(tail, (std::vector<std::string>{"remove memcg-statctl.111/level1/leaf0",
                                              "remove memcg-statctl.111/level1",
                                              "remove memcg-statctl.111"}));
}

// A child that waits to be killed, standing for a workload task.
pid_t start_sleeper() {
    const pid_t pid = ::fork();
    if (pid == 0) {
        while (true) {
            ::pause();
        }
    }
    return pid;
}

TEST(CgroupKill, WritesCgroupKillOnceForTheSubtree) {
    FakeCgroupBackend fake(true);
    fake.create("g");
    fake.create("g/leaf");
    const pid_t child = start_sleeper();
    ASSERT_GT(child, 0);
    FakeCgroupBackend::write(fake.mount() / "g/leaf/cgroup.procs", std::to_string(child) + "\n");
    kill_group_tasks(fake.mount() / "g");
    EXPECT_EQ(read_file(fake.mount() / "g/cgroup.kill"), "1");
    EXPECT_EQ(read_file(fake.mount() / "g/leaf/cgroup.kill"), ""); // the kernel's job
    // The per-task fallback was not taken: nothing signalled the listed task.
    int status = 0;
    EXPECT_EQ(::waitpid(child, &status, WNOHANG), 0);
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
}

TEST(CgroupKill, WithoutCgroupKillSignalsEveryListedTaskBelow) {
    FakeCgroupBackend fake; // a kernel before 5.14
    fake.create("g");
    fake.create("g/level1");
    fake.create("g/level1/leaf");
    const pid_t child = start_sleeper();
    ASSERT_GT(child, 0);
    FakeCgroupBackend::write(fake.mount() / "g/level1/leaf/cgroup.procs",
                             std::to_string(child) + "\n");
    kill_group_tasks(fake.mount() / "g");
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(WTERMSIG(status), SIGKILL);
    EXPECT_FALSE(std::filesystem::exists(fake.mount() / "g/cgroup.kill")); // not created
    kill_group_tasks(fake.mount() / "no_such_group");                      // nothing to do
}

TEST(CgroupKill, HierarchyAndLeftoversRemovedWithCgroupKill) {
    FakeCgroupBackend fake(true);
    const auto root = fake.mount();
    fake.create("memcg-statctl.111");
    fake.create("memcg-statctl.111/leaf0");
    {
        const CgroupHierarchy h(fake, 2, 2, 99);
        const auto left = remove_leftover_groups(fake, [](pid_t pid) { return pid == 99; });
        ASSERT_EQ(left.size(), 1U);
        EXPECT_TRUE(left[0].removed) << left[0].error;
        EXPECT_EQ(read_file(h.top_dir() / "cgroup.kill"), ""); // a live run is left alone
    }
    EXPECT_FALSE(std::filesystem::exists(root / "memcg-statctl.111"));
    EXPECT_FALSE(std::filesystem::exists(root / "memcg-statctl.99"));
    EXPECT_EQ(fake.log.back(), "remove memcg-statctl.99");
}

TEST(CgroupLeftovers, ProcessAlive) {
    EXPECT_TRUE(process_alive(::getpid()));
}

} // namespace
} // namespace memcg_statctl
